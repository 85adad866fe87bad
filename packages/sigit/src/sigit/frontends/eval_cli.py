"""`sigit eval [PACK or PATH ...]`: run task packs through the agent and report how many got solved.

Progress (a bar, and a line per finished attempt) goes to stderr; the totals table, or `--json`, to
stdout; `--report FILE.md` writes the Markdown report. Results are appended to `--results` as each
attempt ends, so Ctrl-C loses nothing and `--resume` picks up where the run stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from ..errors import ModelError, SigitError, UsageError

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
DEFAULT_RESULTS = "sigit-eval.jsonl"


def add_setting_flags(parser: argparse.ArgumentParser) -> None:
    """The flags one setting is made of: the eval's own, and each `--compare` entry's."""
    parser.add_argument(
        "--model",
        default=None,
        help="as for `sigit --model`: a registry name, a .gguf path, "
        "hf:..., transformers:PATH, openai:BASE_URL#MODEL or scripted:FILE",
    )
    parser.add_argument(
        "--no-think",
        dest="thinking",
        action="store_const",
        const=False,
        default=None,
        help="turn the model's thinking off",
    )
    parser.add_argument("--think", dest="thinking", action="store_const", const=True, help="turn thinking on")
    parser.add_argument("--max-tokens", type=int, default=None, help="tokens per reply (default: settings)")
    parser.add_argument(
        "--temperature", type=float, default=None, help="sampling temperature (default: the model preset's)"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="attempt i samples with SEED+i where the backend takes a seed (default 0; -1: unseeded)",
    )
    parser.add_argument(
        "--draft",
        default=None,
        help="speculative decoding: prompt-lookup, mtp, none or a draft .gguf (default: settings)",
    )
    parser.add_argument("--n-ctx", type=int, default=None, help="context size of a local model")
    parser.add_argument(
        "--settings",
        type=Path,
        default=None,
        metavar="FILE",
        help="a settings.toml to use as the user settings (default: none, sigit's defaults)",
    )
    parser.add_argument("--download", action="store_true", help="download the model if it is not cached")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sigit eval",
        description="Run coding tasks through the agent on your model and grade them with checks the agent "
        "never sees. PACK is a built-in pack (smoke, standard), a folder of tasks, or an Exercism checkout "
        "(Aider's polyglot benchmark).",
    )
    parser.add_argument("sources", nargs="*", metavar="PACK or PATH", help="default: smoke")
    add_setting_flags(parser)
    parser.add_argument("--repeat", type=int, default=1, metavar="K", help="attempts per task (pass@k)")
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="attempts side by side (servers only)")
    parser.add_argument(
        "--max-turns",
        type=int,
        default=None,
        metavar="N",
        help="cap every task's turns at N (default: each task's own)",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=None,
        metavar="SECONDS",
        help="cap every task's agent time (default: each task's own)",
    )
    parser.add_argument("--task", action="append", default=[], metavar="GLOB", help="only tasks whose id matches")
    parser.add_argument(
        "--compare",
        action="append",
        default=[],
        metavar="'NAME:--flag value ...'",
        help="run each task under every such setting (the flags above, on top of the eval's own), "
        "interleaved, and report the differences",
    )
    parser.add_argument(
        "--results",
        type=Path,
        default=None,
        metavar="FILE.jsonl",
        help=f"where results are appended as they finish (default: ./{DEFAULT_RESULTS})",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="skip the attempts --results holds already (refused if that file's run used other settings)",
    )
    parser.add_argument(
        "--report",
        type=Path,
        default=None,
        metavar="FILE.md",
        help="write the Markdown report; with an existing --results file and no PACK, rebuild it from that "
        "file without running anything",
    )
    parser.add_argument(
        "--validate",
        action="store_true",
        help="grade each task's reference solution and untouched stub, no model: tasks where the reference "
        "fails or the stub passes are invalid, and later runs report them apart",
    )
    parser.add_argument("--json", action="store_true", help="print the totals and every result as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the task copies (the folder is printed)")
    parser.add_argument("--list", action="store_true", help="list the tasks and exit")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    return parser


def settings_from(args: argparse.Namespace) -> list[Any]:
    """The settings under test: one from the flags, or one per --compare on top of them."""
    from ..eval import EvalSetting

    def setting(name: str, ns: argparse.Namespace, flags: list[str]) -> EvalSetting:
        if ns.max_tokens is not None and ns.max_tokens < 1:
            raise UsageError("--max-tokens must be at least 1")
        if ns.temperature is not None and ns.temperature < 0:
            raise UsageError("--temperature must be at least 0")
        if ns.settings is not None and not ns.settings.is_file():
            raise UsageError(f"--settings {ns.settings} is not a file")
        return EvalSetting(
            name=name,
            model=ns.model,
            thinking=ns.thinking,
            max_tokens=ns.max_tokens,
            temperature=ns.temperature,
            seed=None if ns.seed < 0 else ns.seed,
            draft=ns.draft,
            n_ctx=ns.n_ctx,
            settings_file=ns.settings,
            download=ns.download,
            flags=tuple(flags),
        )

    if not args.compare:
        return [setting(args.model or "default", args, [])]
    sub = argparse.ArgumentParser(prog="sigit eval --compare", add_help=False, exit_on_error=False)
    add_setting_flags(sub)
    out = []
    for entry in args.compare:
        name, sep, rest = entry.partition(":")
        if not sep or not name.strip():
            raise UsageError(f"--compare {entry!r}: write NAME:FLAGS, e.g. 'nothink:--no-think'")
        try:
            tokens = shlex.split(rest)
            ns, unknown = sub.parse_known_args(tokens, namespace=argparse.Namespace(**vars(args)))
        except (ValueError, argparse.ArgumentError) as exc:
            raise UsageError(f"--compare {entry!r}: {exc}") from exc
        if unknown:
            raise UsageError(
                f"--compare {entry!r}: unknown flags {' '.join(unknown)} (a setting takes --model, "
                "--no-think, --think, --max-tokens, --temperature, --seed, --draft, --n-ctx, "
                "--settings, --download)"
            )
        out.append(setting(name.strip(), ns, tokens))
    return out


def run_eval_cli(argv: list[str]) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) if exc.code in (0, None) else EXIT_USAGE
    try:
        if args.validate:
            return _validate(args)
        path = args.results or Path(DEFAULT_RESULTS)
        if path.exists() and not args.resume and not args.sources and (args.report is not None or args.json):
            return _rebuild(args, path)
        return _run(args, ["sigit", "eval", *argv])
    except UsageError as exc:
        print(f"sigit eval: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ModelError as exc:
        print(f"sigit eval: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except SigitError as exc:
        print(f"sigit eval: {exc}", file=sys.stderr)
        return EXIT_ERROR


def _run(args: argparse.Namespace, command: list[str]) -> int:
    from ..eval import EvalOptions, ResultsFile, load_all, run_eval
    from ..logs import setup_logging

    setup_logging(verbose=False)
    if args.repeat < 1 or args.jobs < 1:
        raise UsageError("--repeat and --jobs must be at least 1")
    tasks = load_all(args.sources or ["smoke"], args.task)
    if args.list:
        for task in tasks:
            print(f"{task.id}\t{task.family}\t{task.language}")
        return EXIT_OK
    settings = settings_from(args)
    names = [s.name for s in settings]
    if len(set(names)) != len(names):
        raise UsageError(f"--compare names must differ: {', '.join(names)}")
    path = args.results or Path(DEFAULT_RESULTS)
    results = ResultsFile(path)
    if path.exists() and not args.resume:
        raise UsageError(
            f"{path} holds an earlier run: pass --resume to continue it, --results FILE for a new one, or "
            "--report FILE.md without a PACK to rebuild its report"
        )
    results.load()
    progress = _Progress(quiet=args.quiet)
    if (args.max_turns is not None and args.max_turns < 1) or (args.time_limit is not None and args.time_limit <= 0):
        raise UsageError("--max-turns must be at least 1 and --time-limit above 0")
    options = EvalOptions(
        repeat=args.repeat, jobs=args.jobs, keep=args.keep, max_turns=args.max_turns, time_limit_s=args.time_limit
    )
    sources = [str(s) for s in (args.sources or ["smoke"])]
    try:
        with progress.live(len(tasks) * len(settings) * args.repeat, len(results.results)):
            done = asyncio.run(
                run_eval(
                    settings,
                    tasks,
                    results,
                    options,
                    sources=sources,
                    progress=progress.update,
                    notice=progress.notice,
                    command=command,
                )
            )
    except KeyboardInterrupt:
        print(
            f"sigit eval: interrupted; the finished attempts are in {path} (run again with --resume)", file=sys.stderr
        )
        return EXIT_INTERRUPTED
    run = results.runs[-1] if results.runs else {}
    _show(args, names, done, run, args.repeat)
    if not args.quiet:
        where = f"; report in {args.report}" if args.report is not None else ""
        print(f"sigit eval: results in {path}{where}", file=sys.stderr)
    return EXIT_OK


def _show(args: argparse.Namespace, names: list[str], done: list[Any], run: dict[str, Any], repeat: int) -> None:
    """The report, the JSON or the tables, with the tasks an earlier `--validate` found invalid set apart."""
    from ..config.paths import cache_dir
    from ..eval import as_json, markdown, summarize
    from ..eval.validate import known_invalid

    summary = summarize(names, done, known_invalid(cache_dir(), run.get("task_hashes", {})))
    if args.report is not None:
        args.report.write_text(markdown(summary, done, run, repeat), encoding="utf-8")
    if args.json:
        print(json.dumps(as_json(summary, done, run, repeat), indent=2, default=str))
    else:
        _print_totals(summary, done, repeat)


def _rebuild(args: argparse.Namespace, path: Path) -> int:
    """`--report` (or `--json`) from a results file alone: no task is run and no model loaded."""
    import fnmatch

    from ..eval import ResultsFile

    results = ResultsFile(path)
    results.load()
    done = [
        r
        for r in results.results.values()
        if not args.task or any(fnmatch.fnmatchcase(r.task_id, g) for g in args.task)
    ]
    if not done:
        raise UsageError(f"{path} holds no results{' for ' + ' or '.join(args.task) if args.task else ''}")
    names = list(dict.fromkeys([s.get("name") for run in results.runs for s in run.get("settings", [])]))
    names = [n for n in names if isinstance(n, str)] + sorted({r.setting for r in done} - set(names))
    names = [n for n in names if any(r.setting == n for r in done)]
    run = dict(results.runs[-1]) if results.runs else {}
    run["task_hashes"] = {k: v for old in results.runs for k, v in old.get("task_hashes", {}).items()}
    repeat = max(int(run.get("repeat", 1)), max(r.attempt for r in done) + 1)
    _show(args, names, done, run, repeat)
    if not args.quiet:
        where = f"report in {args.report}, " if args.report is not None else ""
        print(f"sigit eval: {where}rebuilt from {path} (nothing was run)", file=sys.stderr)
    return EXIT_OK


def _validate(args: argparse.Namespace) -> int:
    """`--validate`: every task's reference and stub through the grader; exit 1 when some task is invalid."""
    from ..config.paths import cache_dir
    from ..eval import EvalOptions, load_all
    from ..eval.validate import save, validate

    tasks = load_all(args.sources or ["smoke"], args.task)

    def progress(verdict: Any) -> None:
        if not args.quiet:
            mark = {True: "✓", False: "✗", None: "?"}[verdict.valid]
            print(f"{mark} {verdict.task_id}: {verdict.reason}", file=sys.stderr)

    verdicts = asyncio.run(validate(tasks, EvalOptions(jobs=args.jobs), progress))
    save(cache_dir(), verdicts)
    invalid = [v for v in verdicts if v.valid is False]
    unchecked = [v for v in verdicts if v.valid is None]
    if args.json:
        print(json.dumps([dataclasses.asdict(v) for v in verdicts], indent=2))
    else:
        print(
            f"{len(verdicts) - len(invalid) - len(unchecked)} valid, {len(invalid)} invalid, {len(unchecked)} "
            "without a reference solution"
        )
        for v in invalid:
            print(f"invalid: {v.task_id}: {v.reason}")
    return EXIT_ERROR if invalid else EXIT_OK


def _print_totals(summary: Any, done: list[Any], repeat: int) -> None:
    from rich.console import Console
    from rich.table import Table

    from ..eval.report import comparison_lines, invalid_lines, outcome_line, task_table, totals_header, totals_row

    console = Console(highlight=False)
    if not console.is_terminal:  # a file or a pipe: the whole table, not one squeezed into 80 columns
        console = Console(highlight=False, width=240)
    header, rows = task_table([r for r in done if r.task_id not in summary.invalid])
    tasks = Table(*header, title="attempts", title_justify="left")
    for row in rows:
        tasks.add_row(*row)
    console.print(tasks)
    totals = Table(*totals_header(repeat), title="totals", title_justify="left")
    for t in summary.totals:
        totals.add_row(*totals_row(t, repeat))
    console.print(totals)
    for t in summary.totals:
        console.print(f"{t.setting}: {outcome_line(t)}")
    for line in comparison_lines(summary):
        console.print(line)
    for line in invalid_lines(summary):
        console.print(f"invalid task, left out of the totals: {line}")


class _Progress:
    """A rich progress bar on stderr, with a line per finished attempt above it."""

    def __init__(self, *, quiet: bool) -> None:
        self.quiet = quiet
        self._bar: Any = None
        self._task: Any = None

    def live(self, total: int, done: int) -> Any:
        import contextlib

        if self.quiet:
            return contextlib.nullcontext()
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._bar = Progress(
            TextColumn("eval"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.description}"),
            console=Console(stderr=True, highlight=False),
        )
        self._task = self._bar.add_task("", total=total, completed=done)
        return self._bar

    def notice(self, message: str) -> None:
        if not self.quiet:
            print(f"sigit eval: {message}", file=sys.stderr)

    def update(self, job: Any, result: Any) -> None:
        if self._bar is None:
            return
        if result is None:
            self._bar.update(self._task, description=f"{job.task.id} ({job.setting.name})")
            return
        mark = "✓" if result.solved else "✗"
        from ..eval.results import OUTCOME_WORDS

        self._bar.console.print(
            f"{mark} {result.task_id} [{result.setting}, try {result.attempt}] "
            f"{OUTCOME_WORDS[result.outcome]}: {result.detail[:120]} ({result.wall_s:.1f} s)",
            markup=False,
        )
        self._bar.advance(self._task)
