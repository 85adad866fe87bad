"""The `sigit` command. Imports stay lazy so `sigit --version` starts fast."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import importlib
import os
import sys
import threading
from collections.abc import Callable
from typing import Any, NoReturn

from .startup_gc import held_off

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
PERMISSION_MODES = ("default", "accept-edits", "plan", "bypass")
SANDBOX_MODES = ("read-only", "workspace-write", "off")  # sandbox.MODES, spelt out: the sandbox loads lazily


class _VersionAction(argparse.Action):
    """`--version`: every layer's version, read only when asked for."""

    def __init__(self, option_strings: list[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *_args: object, **_kwargs: object) -> None:
        from .versions import version_text

        print(version_text())
        parser.exit()


def build_parser(*, acp: bool = False) -> argparse.ArgumentParser:
    """`sigit`'s flags; `acp`: `sigit acp`'s, where the flags that do not apply to serving an editor are
    still parsed (to say why they do not go with it) but left out of the help."""
    if acp:
        parser = argparse.ArgumentParser(
            prog="sigit acp",
            description="Serve the Agent Client Protocol on stdin/stdout for Zed and other ACP editors: the "
            "editor opens, prompts and resumes the sessions. Logs go to stderr, or to the file SIGIT_ACP_LOG "
            "names. The server exits when stdin closes.",
        )
    else:
        parser = argparse.ArgumentParser(
            prog="sigit",
            description="siGit Code: a local-first coding agent. With no arguments in a terminal, opens the app.",
            epilog="Subcommands (each with its own --help): `sigit acp` serves the Agent Client Protocol on "
            "stdio (for Zed); `sigit init` writes AGENTS.md for the repository; `sigit sessions [list|delete ID]` "
            "manages saved sessions; `sigit trust [DIR|--list|--revoke DIR]` records which folders' project "
            "settings apply; `sigit sandbox check` shows what the OS sandbox enforces here; `sigit doctor "
            "[--json] [--model M]` checks what this machine can run; `sigit cache [list|clear]` shows or clears "
            "the prompt cache of local models; `sigit mcp [--port N]` serves siGit as an MCP server (run_task "
            "and its tools); `sigit eval [PACK ...]` runs coding tasks through the agent and reports how many "
            "it solved. `sigit --claude --help` lists the flags of Claude Code's dialect.",
        )

    def add(*names: str, serves: bool = True, **options: Any) -> None:
        """A flag; `serves`: it applies to `sigit acp` too (else it is hidden from that help)."""
        if acp and not serves:
            options["help"] = argparse.SUPPRESS
        parser.add_argument(*names, **options)

    add("--version", action=_VersionAction, help="show the versions of sigit, onde, qwen-runtime and llama.cpp, "
        "and exit")
    add("-p", "--print", dest="prompt", nargs="?", const="", default=None, metavar="PROMPT", serves=False,
        help="run one prompt headless and print the result (no PROMPT: the prompt comes on stdin; with one, "
        "text piped on stdin follows it)")
    add("-i", "--image", action="append", default=[], metavar="FILE", serves=False,
        help="attach an image to the prompt (repeatable; `@shot.png` in the prompt does the same); "
        "needs a model that can see")
    add("--cwd", default=None, serves=False, help="working directory (default: the current one)")
    add("--model", default=None, help="a registry name (qwen3-8b), a .gguf path, hf:REPO/FILE, "
        "transformers:PATH, openai:BASE_URL#MODEL or scripted:FILE")
    add("--permission-mode", choices=PERMISSION_MODES, default=None)
    add("--sandbox", dest="sandbox", choices=SANDBOX_MODES, default=None, metavar="MODE",
        help="where commands may write: read-only, workspace-write (the default) or off (no OS sandbox); "
        "overrides [sandbox] mode. --permission-mode bypass leaves it on")
    add("--allow-tool", action="append", default=[], metavar="RULE",
        help="allow a tool or rule pattern, e.g. run_command or 'run_command(git *)'")
    add("--deny-tool", action="append", default=[], metavar="RULE")
    add("--add-dir", action="append", default=[], metavar="DIR",
        help="let the file tools read DIR too (repeatable); the working directory is always readable")
    add("--max-turns", type=int, default=24, help="rounds of tool calls per prompt")
    add("--output-format", choices=("text", "json", "stream-json"), default=None, serves=False,
        help="text (the default), or Claude Code's json or stream-json shapes")
    add("--resume", metavar="ID", default=None, serves=False, help="continue a saved session")
    add("--continue", dest="continue_last", action="store_true", serves=False,
        help="continue the latest session of this directory")
    add("--fork-session", action="store_true", serves=False,
        help="with --resume/--continue: continue in a new copy, leaving the original as it was")
    add("--n-ctx", default=None, metavar="TOKENS",
        help="the context window of a local model, in tokens (default: the `n_ctx` setting, else sized to the "
        "model and this machine's memory)")
    add("--chat-template", default=None, metavar="FILE",
        help="a chat template (Jinja, or a tokenizer_config.json) for a local model whose file has none or a "
        "wrong one; overrides the `chat_template` setting")
    add("--keep-alive", default=None, metavar="DURATION",
        help='how long a local model stays loaded for the next command, e.g. 5m, 90s, or 0 to load it in this '
        "process only (default: $SIGIT_KEEP_ALIVE, else the `keep_alive` setting, else 5m)")
    add("--no-think", action="store_true", help="turn the model's thinking off")
    add("--draft", default=None, metavar="SOURCE",
        help="speculative decoding for a local model: prompt-lookup (or ngram), mtp (the model's own "
        "multi-token-prediction head), none, or a draft model's .gguf path; overrides the `draft` setting")
    add("--trust", action="store_true",
        help="trust this folder for this run: its project hooks, MCP servers, model and permission settings "
        "apply (`sigit trust` records it)")
    add("--quiet", "-q", action="store_true",
        help="log warnings only" if acp else "no progress on stderr")
    add("--verbose", action="store_true", serves=False,
        help="also show the log (llama.cpp, libraries; SIGIT_LOG sets the level) on stderr")
    add("--download", action="store_true",
        help="download the model for this run if it is not cached yet (nothing multi-gigabyte is downloaded "
        "without it, or `download = \"auto\"` in settings)")
    add("--offline", action="store_true",
        help="make no network request but to the model's endpoint: no download or hub, web tools refused, MCP "
        "servers only over stdio or loopback, commands' network off (`offline = true` in settings)")
    add("--acp", action="store_true", serves=False, help="serve ACP on stdio (same as `sigit acp`)")
    add("--claude", action="store_true", serves=False,
        help="speak Claude Code's CLI dialect (its flags and stream-json, as the Claude Agent SDKs read them; "
        "`sigit --claude --help` lists them); also chosen by --output-format stream-json with --input-format "
        "stream-json, or when an Agent SDK starts sigit")
    return parser


SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "sessions": ("sigit.frontends.sessions_cli", "run_sessions"),
    "trust": ("sigit.frontends.trust_cli", "run_trust"),
    "cache": ("sigit.frontends.cache_cli", "run_cache"),
    "sandbox": ("sigit.sandbox.check", "run_check"),
    "doctor": ("sigit.frontends.doctor", "run_doctor"),
    "mcp": ("sigit.frontends.mcp_server", "run_mcp"),
    "eval": ("sigit.frontends.eval_cli", "run_eval_cli"),
}
"""Subcommands with their own arguments: (module, function taking the rest of argv), imported when run."""


def main(argv: list[str] | None = None, *, process_ends: bool = False) -> int:
    """`process_ends`: the process ends when this returns (`run`): a one-shot run need not free its model."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] in SUBCOMMANDS:
        module, function = SUBCOMMANDS[args_list[0]]
        run: Callable[[list[str]], int] = getattr(importlib.import_module(module), function)
        return run(args_list[1:])
    from .frontends.claude_cli import dialect_notice, is_claude_invocation

    if args_list[:1] not in (["acp"], ["init"]) and is_claude_invocation(args_list):  # a Claude Agent SDK app
        return _claude_cli(args_list)
    if (notice := dialect_notice(args_list)) is not None:
        print(notice, file=sys.stderr)
    init, acp = args_list[:1] == ["init"], args_list[:1] == ["acp"]
    args = _parse(args_list[1:] if init or acp else args_list, acp=acp, init=init)
    if isinstance(args, int):
        return args
    args.process_ends = process_ends
    if args.acp:  # its stderr is the editor's log view (or SIGIT_ACP_LOG names a file)
        from .frontends.acp import serve

        return serve(args)
    # the app draws on the terminal: its log goes to the file only, whatever --verbose says
    headless = init or args.prompt is not None or (not sys.stdin.isatty() and not sys.stdout.isatty())
    with held_off(headless and not init and process_ends):  # a one-shot start makes no garbage (startup_gc)
        from .logs import setup_logging

        setup_logging(verbose=args.verbose and headless)
        if init:
            from .frontends.headless import run_init

            return run_init(args)
        if headless:
            return _headless(args)
    from .frontends.tui import run_tui

    return run_tui(args)


def _claude_cli(args_list: list[str]) -> int:
    # from the submodule: the package's `run` imports it, and importing `claude_cli.run` binds the package's
    # attribute `run` to the submodule, so a second `main` in one process found a module, not a function
    from .frontends.claude_cli.run import run as run_claude_cli
    from .logs import setup_logging

    setup_logging(verbose=False)  # the SDK app reads stderr as the CLI's own; records go to the log file
    return run_claude_cli(args_list)


def _usage_error(message: str) -> int:
    print(f"sigit: {message}", file=sys.stderr)
    return EXIT_USAGE


def _parse(args_list: list[str], *, acp: bool = False, init: bool = False) -> argparse.Namespace | int:
    """The parsed flags, with `--cwd` and `--add-dir` made absolute and checked; an exit code if bad
    (`acp`: `sigit acp`'s; `init`: `sigit init`'s)."""
    try:
        args = build_parser(acp=acp).parse_args(args_list)
    except SystemExit as exc:
        return int(exc.code or 0) if exc.code in (0, None) else EXIT_USAGE
    args.acp = args.acp or acp
    if (contradiction := _contradiction(args, init=init)) is not None:
        return _usage_error(contradiction)
    args.output_format = args.output_format or "text"
    if args.max_turns < 1:
        return _usage_error("--max-turns must be at least 1")
    if args.n_ctx is not None:
        if (n_ctx := positive_int(args.n_ctx)) is None:
            return _usage_error(f"--n-ctx takes a positive whole number of tokens, e.g. --n-ctx 32768 (not "
                                f"{args.n_ctx!r})")
        args.n_ctx = n_ctx
    if args.chat_template is not None:
        template = os.path.abspath(os.path.expanduser(args.chat_template))
        if not os.path.isfile(template):
            return _usage_error(f"--chat-template {args.chat_template}: no such file")
        args.chat_template = template
    if args.keep_alive is not None:
        from onde.system import parse_keep_alive

        try:
            args.keep_alive = parse_keep_alive(args.keep_alive)
        except ValueError as exc:
            return _usage_error(f"--keep-alive: {exc}")
    cwd = os.path.abspath(args.cwd or os.getcwd())
    if not os.path.isdir(cwd):
        return _usage_error(f"--cwd {cwd} is not a directory")
    args.cwd = cwd
    add_dirs = [os.path.abspath(os.path.expanduser(d)) for d in args.add_dir]
    for directory in add_dirs:
        if not os.path.isdir(directory):
            return _usage_error(f"--add-dir {directory} is not a directory")
    args.add_dir = add_dirs
    if args.draft is not None:
        from onde import DraftSourceError, parse_draft

        try:
            args.draft = str(parse_draft(args.draft))
        except DraftSourceError as exc:
            return _usage_error(f"--{exc}")
    return args


def positive_int(text: str) -> int | None:
    """`text` as a positive integer (`32768`, `32_768`), or None."""
    try:
        value = int(text.strip())
    except ValueError:
        return None
    return value if value > 0 else None


def _contradiction(args: argparse.Namespace, *, init: bool) -> str | None:
    """Why flags given together cannot all be obeyed (one line), or None."""
    if args.acp:
        for given, flag, why in (
            (args.prompt is not None, "-p", "runs one prompt and exits"),
            (bool(args.image), "--image", "attaches an image to a -p prompt"),
            (args.resume is not None, "--resume", "picks a session for -p or the app"),
            (args.continue_last, "--continue", "picks a session for -p or the app"),
            (args.fork_session, "--fork-session", "forks a session for -p or the app"),
            (args.output_format is not None, "--output-format", "shapes what -p prints"),
            (args.claude, "--claude", "speaks Claude Code's CLI dialect"),
        ):
            if given:
                return (f"{flag} {why}, but `sigit acp` serves an editor over ACP (the editor opens, resumes and "
                        "prompts its sessions): use one or the other")
    if init and args.prompt is not None:
        return "`sigit init` runs its own prompt (it writes AGENTS.md): leave out -p, or run `sigit -p` instead"
    if args.resume is not None and args.continue_last:
        return "--resume ID and --continue each pick the session to continue: give one of them"
    if args.fork_session and args.resume is None and not args.continue_last:
        return "--fork-session copies the session that --resume ID or --continue picks: give one of them too"
    return None


def run() -> NoReturn:
    """The `sigit` command: `main`, then, after a one-shot headless run, the process ends without taking
    the interpreter apart.

    By then the session is closed (model unloaded, servers stopped, files written) and the answer
    printed; what is left is CPython's teardown of ~650 modules and their objects, 0.1 s of every
    `sigit -p` here (measured 2026-12-05 on Gemma: 0.10-0.14 s from `main` returning to the process
    ending, 0.02 s without the teardown), which a script calling siGit in a loop pays each time. The
    exit functions still run (the log file is flushed and closed by them) and the standard streams are
    flushed first; with a non-daemon thread still running the ordinary exit waits for it instead."""
    code = main(process_ends=True)
    if _one_shot_done:
        _exit_now(code)
    sys.exit(code)


_one_shot_done = False
"""A headless run finished and closed everything it opened: nothing needs the interpreter's teardown."""


def _exit_now(code: int) -> NoReturn:
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        sys.exit(code)
    _flush_streams()
    atexit._run_exitfuncs()  # logging.shutdown (the log file), weakref finalizers, what libraries registered
    _flush_streams()
    os._exit(code)


def _flush_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader that went away, a stream closed
            stream.flush()


def _headless(args: argparse.Namespace) -> int:
    """`-p PROMPT`, `-p` with the prompt on stdin, or a prompt piped in with no terminal at either end."""
    global _one_shot_done
    code = _headless_run(args)
    _one_shot_done = True
    return code


def _headless_run(args: argparse.Namespace) -> int:
    from .frontends.headless_stdin import read_stdin, stdin_is_terminal

    args.stdin_follows = False
    if args.prompt is None:  # piped: stdin is the prompt
        args.prompt = read_stdin()
        if not args.prompt.strip():
            return _usage_error("no prompt (use -p PROMPT, or run in a terminal for the app)")
        return _run_headless(args)
    if args.prompt == "":
        if stdin_is_terminal():
            return _usage_error("-p needs a prompt (an argument or on stdin)")
        args.prompt = read_stdin()
    else:  # `git diff | sigit -p "review this"`: what is piped follows the prompt, as with `claude -p`
        args.stdin_follows = True
    if not args.prompt.strip():
        return _usage_error("the prompt is empty")
    return _run_headless(args)


def _run_headless(args: argparse.Namespace) -> int:
    """The model starts loading first (early_load.py), then stdin piped beside a prompt is read and the
    headless frontend is imported, beside it."""
    from pathlib import Path

    from .early_load import EarlyLoad
    from .frontends.host_args import headless_host_options

    early = EarlyLoad.start(headless_host_options(args), Path(args.cwd))
    if args.stdin_follows:
        from .frontends.headless_stdin import with_piped_input

        args.prompt = with_piped_input(args.prompt)
    from .frontends.headless import run_headless

    return run_headless(args, early)


if __name__ == "__main__":
    run()
