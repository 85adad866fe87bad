"""`qwen-runtime`: list, pull and try models from a shell, and build tiny test models.

Exit status: 0 done, 1 a model or runtime error, 2 a usage error. Heavy modules (llama.cpp, torch,
huggingface_hub) are imported inside the command that needs them, so `--help` stays instant.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .errors import QwenRuntimeError
from .home import expand_home
from .models.registry import DEFAULT_MODEL, REGISTRY
from .models.templates import TEMPLATE_NAMES

if TYPE_CHECKING:
    from .models.naming import RuntimeSpec
    from .types import ChatRequest, ToolSpec


class UsageError(Exception):
    """Bad flags or unusable input files: exit status 2."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="qwen-runtime",
        description="Run Qwen models locally: list, download and try them; build tiny test models.",
        epilog=(
            "A MODEL is a registry key (" + ", ".join(e.key for e in REGISTRY) + "), a path to a .gguf "
            "file, hf:OWNER/REPO/FILE.gguf, transformers:PATH, openai:BASE_URL#MODEL or scripted:FILE."
        ),
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    make = commands.add_parser("make-test-model", help="write a tiny random Qwen 3 (or 3.5) model for tests")
    make.add_argument("out", metavar="OUT", help="the .gguf file (or the folder, for --format hf) to write")
    make.add_argument("--format", choices=("gguf", "hf"), default="gguf", help="GGUF file or HF folder")
    make.add_argument("--arch", choices=("qwen3", "qwen35", "qwen35moe", "gemma3"),  # testmodel.TEST_ARCHS
                      default="qwen3",
                      help="qwen3 (dense, default), qwen35 (Qwen 3.5's hybrid: Gated DeltaNet + attention), "
                           "qwen35moe (the hybrid with mixture-of-experts layers, as Qwen3.6-35B-A3B) or "
                           "gemma3 (Gemma 3's layers: a sliding attention window of 16 tokens)")
    make.add_argument("--seed", type=int, help="random seed for the weights (default 0; 1 for qwen35)")
    make.add_argument("--template", choices=TEMPLATE_NAMES, default=None,
                      help="the chat template it carries (default: the architecture's own; "
                           "qwen3-coder and qwen3.5 call tools in XML)")
    make.add_argument("--vision", action="store_true",
                      help="also write its vision projector, mmproj-OUT.gguf beside it (--arch qwen35 only)")

    make.add_argument("--shape", choices=("tiny", "0.8b", "4b"), default="tiny",
                      help="with --arch qwen35: the real dimensions of Qwen3.5-0.8B or 4B (random weights, "
                           "248,320-token vocabulary; GB-sized, for benchmarks)")
    make.add_argument("--quant", choices=("q8_0", "q4_k"), default="q8_0",  # benchmodel.QUANTS
                      help="with --shape 0.8b or 4b: how the weights are quantized")
    make.add_argument("--mtp", action="store_true",
                      help="with --arch qwen35: add Qwen 3.5's multi-token-prediction block (GGUF only)")
    make.add_argument("--mtp-agrees", action="store_true",
                      help="with --mtp: a block that predicts what the model predicts, by construction (most "
                           "drafts accepted: proves the MTP path; any shape: at 0.8b and 4b it shows what MTP "
                           "gains at real size, with an untied output matrix)")

    commands.add_parser("models", help="list the known models, their sizes, whether they fit here and are cached")

    inspect = commands.add_parser("inspect", help="show what a GGUF is and how it would run here")
    inspect.add_argument("model", metavar="MODEL", help="a .gguf file, or a registry key already downloaded")
    inspect.add_argument("--n-ctx", type=_positive, metavar="N", help="the context window to pin (as settings' n_ctx)")
    inspect.add_argument("--json", action="store_true", help="print it as one JSON object")
    inspect.add_argument("--chat-template", metavar="FILE",
                         help="a chat template (Jinja, or a tokenizer_config.json) to use over the file's own")

    pull = commands.add_parser("pull", help="download a model into the Hugging Face cache")
    pull.add_argument("model", metavar="MODEL", help="a registry key or hf:OWNER/REPO/FILE.gguf")

    tune = commands.add_parser(
        "tune", help="measure which threads, batch size, draft and KV cache run a GGUF fastest here, and keep them",
        description="A short calibration on this machine (about a minute for a 1B model on 2 cores; --quick halves "
                    "it): decode and batch threads, the prefill chunk, the cost of verifying drafts, each draft "
                    "source, and whether a q8_0 KV cache keeps tool calls intact. The choices are written to the "
                    "model's tuned settings, which every later load of this file on this machine takes for what "
                    "it is not given explicitly.")
    tune.add_argument("model", metavar="MODEL", help="a .gguf file, or a registry key already downloaded")
    tune.add_argument("--quick", action="store_true", help="fewer rounds and sizes: about half the time, noisier")
    tune.add_argument("--dry-run", action="store_true", help="measure and print, write nothing")
    tune.add_argument("--show", action="store_true", help="print the tuned settings kept for MODEL; measure nothing")
    tune.add_argument("--reset", action="store_true", help="forget MODEL's tuned settings on this machine")
    tune.add_argument("--json", action="store_true", help="print the record as JSON")

    gen = commands.add_parser("generate", help="run one chat turn and print the reply")
    add = gen.add_argument
    add("--model", "-m", default=DEFAULT_MODEL, help=f"the model (default {DEFAULT_MODEL})")
    add("--prompt", "-p", required=True, help="the user message ('-' reads standard input)")
    add("--system", help="a system message")
    add("--tools", metavar="FILE.json", help="a JSON list of tool definitions to offer")
    add("--tool-choice", default="auto", metavar="auto|required|none|NAME", help="which tools may be called")
    add("--no-think", action="store_true", help="answer without a reasoning phase")
    add("--max-tokens", type=_positive, default=4096, metavar="N", help="(default 4096)")
    add("--seed", type=int, help="sampling seed, for repeatable output")
    add("--temperature", type=_temperature, metavar="F", help="(default 0.6, 0.7 with --no-think)")
    add("--chat-template", metavar="FILE",
        help="a chat template (Jinja, or a tokenizer_config.json) for a model file that has none or a wrong one")
    add("--n-ctx", type=_positive, default=None, metavar="N",
        help="context window (default: the largest of 16k-128k the model and this machine's memory allow)")
    add("--reasoning-effort", choices=("low", "medium", "xhigh"),
        help="how hard to think, for templates that take it (Qwen 3.8)")
    add("--preserve-thinking", action=argparse.BooleanOptionalAction, default=None,
        help="keep earlier turns' reasoning in the prompt, for templates that take it (Qwen 3.6, 3.8)")
    add("--n-gpu-layers", type=int, default=None, metavar="N",
        help="layers offloaded to a GPU (-1 all, 0 none; default: all when llama.cpp has a GPU backend)")
    add("--threads", type=_positive, metavar="N",
        help="decode threads (default: one per physical core this process may use, within its CPU quota)")
    add("--draft", default=None, metavar="prompt-lookup|mtp|none|MODEL.gguf",
        help="speculative decoding: prompt-lookup (also ngram) drafts tokens from the context (default, unless "
             "`qwen-runtime tune` chose otherwise), mtp (the model's own multi-token-prediction head, where its "
             "GGUF has one), none, or a small draft model with the same tokenizer")
    add("--image", "-i", action="append", default=[], metavar="FILE",
        help="an image to send with the prompt (repeatable; needs a model that can see)")
    add("--mmproj", metavar="FILE",
        help="the vision projector (mmproj GGUF) that lets a GGUF model see images (default: one beside the "
             "model; 'none' for none)")
    add("--verbose", "-v", action="store_true", help="log what was chosen (threads, draft) to standard error")
    add("--json", action="store_true", help="print the whole reply as one JSON object")
    return parser


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a number above 0, not {value}")
    return value


def _temperature(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, not {text!r}") from None
    if not 0.0 <= value <= 5.0:
        raise argparse.ArgumentTypeError(f"temperature must be between 0 and 5, not {value}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help, or argparse's own usage error (already printed)
        return exit_.code if isinstance(exit_.code, int) else 2
    try:
        if args.command == "make-test-model":
            return _make_test_model(args)
        if args.command == "models":
            return _models()
        if args.command == "inspect":
            return _inspect(args)
        if args.command == "pull":
            return _pull(args.model)
        if args.command == "tune":
            return _tune(args)
        return _generate(args)
    except UsageError as exc:
        parser.print_usage(sys.stderr)
        print(f"qwen-runtime: error: {exc}", file=sys.stderr)
        return 2
    except QwenRuntimeError as exc:
        print(f"qwen-runtime: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("qwen-runtime: interrupted", file=sys.stderr)
        return 130


# ---------------------------------------------------------------- commands


def _make_test_model(args: argparse.Namespace) -> int:
    from .testing import testmodel

    out = Path(args.out)
    if args.vision and (args.arch != "qwen35" or args.format != "gguf"):
        raise UsageError("--vision writes a Qwen 3.5 projector: use it with --arch qwen35 and --format gguf")
    if args.shape != "tiny" and (args.arch != "qwen35" or args.format != "gguf"):
        raise QwenRuntimeError(f"--shape {args.shape} is a Qwen 3.5 GGUF: use it with --arch qwen35 --format gguf")
    if args.mtp and (args.arch != "qwen35" or args.format != "gguf"):
        raise QwenRuntimeError("--mtp is Qwen 3.5's multi-token-prediction block: use it with --arch qwen35 "
                               "--format gguf")
    if args.mtp_agrees and not args.mtp:
        raise UsageError("--mtp-agrees shapes the model's MTP block: use it with --mtp")
    try:
        if args.shape != "tiny":
            from .testing.benchmodel import write_bench_gguf

            written = write_bench_gguf(out, args.shape, quant=args.quant, mtp=args.mtp, mtp_agrees=args.mtp_agrees)
        elif args.format == "gguf":
            written = testmodel.write_test_gguf(out, seed=args.seed, arch=args.arch, template=args.template,
                                                mtp=args.mtp, mtp_agrees=args.mtp_agrees)
            if args.vision:
                from .testing.testmodel_qwen35 import SHAPE
                from .testing.testmodel_vision import mmproj_path_for, write_test_mmproj

                print(written)
                written = write_test_mmproj(mmproj_path_for(written), out_dim=SHAPE.n_embd)
        else:
            written = testmodel.write_test_hf(out, seed=args.seed, arch=args.arch, template=args.template)
    except OSError as exc:
        raise QwenRuntimeError(f"cannot write the test model to {out}: {exc.strerror or exc}") from None
    except ImportError as exc:
        raise QwenRuntimeError(f"building a {args.format} test model needs {exc.name or exc}") from None
    except ValueError as exc:  # a combination the builder does not make (qwen35moe as a folder)
        raise UsageError(str(exc)) from None
    print(written)
    return 0


def _models() -> int:
    from .models.download import cached_path, hub_cache_dir
    from .models.registry import human_size, memory_bytes

    memory = memory_bytes()
    rows = [("KEY", "NAME", "SIZE", "NEEDS", "FITS", "TEMPLATE", "TOOLS", "IMAGES", "CACHED")]
    for entry in REGISTRY:
        found = cached_path(entry.repo_id, entry.filename)
        tools = "yes" if entry.tool_capable else "no"
        fits = {True: "yes", False: "no", None: "?"}[entry.fits(memory)]
        images = f"+{human_size(entry.mmproj_size_bytes)}" if entry.mmproj else "no"
        if entry.mmproj and cached_path(entry.repo_id, entry.mmproj):
            images += " (cached)"
        rows.append((entry.key, entry.name, entry.size_display, human_size(entry.memory_needed), fits,
                     entry.template, tools, images, str(found) if found else "not cached"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) + "  " + row[-1])
    shown = human_size(memory) if memory is not None else "unknown"
    print(f"\ncache: {hub_cache_dir()}  (memory: {shown}; default model: {DEFAULT_MODEL}; "
          "~ marks a size not verified)")
    return 0


def _inspect(args: argparse.Namespace) -> int:
    from .models.report import inspect_gguf

    spec = _spec(args.model)
    if spec.kind not in ("registry", "hf", "gguf"):
        raise UsageError(f"inspect takes a .gguf file or a registry key, not a {spec.kind} runtime")
    path = _local_gguf(spec)
    report = inspect_gguf(path, pinned_n_ctx=args.n_ctx, chat_template_file=args.chat_template)
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(report.render())
    for warning in report.warnings:
        print(f"qwen-runtime: warning: {warning}", file=sys.stderr)
    return 0


def _local_gguf(spec: RuntimeSpec) -> Path:
    """The file a gguf, registry or hf spec names, without downloading."""
    from .models.download import cached_path
    from .models.registry import get_model

    if spec.kind == "gguf":
        path = expand_home(str(spec.path))
        if not path.is_file():
            raise UsageError(f"no such GGUF file: {path}")
        return path
    repo_id, filename = ((get_model(str(spec.key)).repo_id, get_model(str(spec.key)).filename)
                         if spec.kind == "registry" else (str(spec.repo_id), str(spec.filename)))
    found = cached_path(repo_id, filename)
    if found is None:
        raise UsageError(f"{filename} is not downloaded; run `qwen-runtime pull {_pull_name(spec)}` first")
    return Path(found)


def _pull_name(spec: RuntimeSpec) -> str:
    return str(spec.key) if spec.kind == "registry" else f"hf:{spec.repo_id}/{spec.filename}"


def _pull(name: str) -> int:
    from .models.naming import resolve_gguf

    spec = _spec(name)
    if spec.kind not in ("registry", "hf", "gguf"):
        raise UsageError(f"pull takes a registry key or hf:OWNER/REPO/FILE.gguf, not a {spec.kind} runtime")
    print(resolve_gguf(spec, progress=True))
    return 0


def _tune(args: argparse.Namespace) -> int:
    from .speed import tuning

    if sum((args.show, args.reset, args.dry_run)) > 1:
        raise UsageError("--show, --reset and --dry-run are separate actions: give one")
    spec = _spec(args.model)
    if spec.kind not in ("registry", "hf", "gguf"):
        raise UsageError(f"tune takes a .gguf file or a registry key, not a {spec.kind} runtime")
    path = _local_gguf(spec)
    if args.reset:
        removed = tuning.reset_tuning(path)
        print(f"forgot the tuned settings of {path} ({removed})" if removed else
              f"{path} has no tuned settings on this machine")
        return 0
    if args.show:
        return _show_tuning(tuning.tuning_status(path), as_json=args.json)
    import time

    from .backends.llamacpp.calibration import busy_warning, calibrate

    started = time.monotonic()

    def say(step: str) -> None:
        print(f"qwen-runtime: tune: {time.monotonic() - started:3.0f} s  {step}", file=sys.stderr, flush=True)

    result = calibrate(path, quick=args.quick, progress=None if args.json else say)
    record = result.settings
    if args.json:
        print(json.dumps(record.to_dict(), indent=2))
    else:
        print(result.table())
        print(f"\nchosen for {path.name} on {record.machine.describe()} ({record.seconds:.0f} s of measuring):")
        print(f"  {record.summary()}")
    if (busy := busy_warning(record)) is not None:
        print(f"qwen-runtime: warning: {busy}", file=sys.stderr)
    if args.dry_run:
        print("dry run: nothing written", file=sys.stderr)
        return 0
    written = tuning.save_tuned(record)
    print(f"wrote {written}; every load of this file on this machine takes these values for what it is not given "
          "(`qwen-runtime tune --reset` forgets them)", file=sys.stderr)
    return 0


def _show_tuning(status: Any, *, as_json: bool) -> int:
    here = status.here
    if as_json:
        print(json.dumps({
            "model": str(status.model_path),
            "here": here.to_dict() if here is not None else None,
            "elsewhere": [r.to_dict() for r in status.elsewhere],
            "stale": status.stale.to_dict() if status.stale is not None else None,
            "problems": list(status.problems),
        }, indent=2))
        return 0
    if here is not None:
        costs = ", ".join(f"{n}: {c:.2f}" for n, c in sorted(here.verify_costs.items()))
        print(f"{status.model_path}: tuned {here.when} on this machine ({here.machine.describe()}"
              f"{', quick' if here.quick else ''})")
        print(f"  {here.summary()}")
        print(f"  verify costs (tokens per pass: decode steps): {costs}")
    else:
        print(f"{status.model_path}: not tuned on this machine; run `qwen-runtime tune {status.model_path}`")
    if status.stale is not None:
        print(f"  tuned {status.stale.when} on an earlier file at this path (replaced since): not applied")
    for other in status.elsewhere:
        print(f"  tuned {other.when} on another machine ({other.machine.describe()}): not applied here")
    for problem in status.problems:
        print(f"  ignored an unreadable record: {problem}")
    return 0


def _spec(name: str) -> RuntimeSpec:
    from .models.naming import parse_runtime_name

    try:
        return parse_runtime_name(name)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _generate(args: argparse.Namespace) -> int:
    from .models.naming import load_runtime
    from .speed.draft_sources import DraftSourceError, parse_draft

    request = _build_request(args)
    _spec(args.model)  # a bad name is a usage error, before anything loads
    options: dict[str, Any] = {"progress": True}
    if args.draft is not None:  # else the tuned choice, or prompt lookup
        try:
            options["draft"] = str(parse_draft(args.draft))
        except DraftSourceError as exc:
            raise UsageError(f"--{exc}") from None
    if args.n_ctx is not None:
        options["n_ctx"] = args.n_ctx
    if args.chat_template:
        options["chat_template_file"] = args.chat_template
    if args.mmproj:
        if args.mmproj != "none" and not expand_home(args.mmproj).is_file():
            raise UsageError(f"--mmproj {args.mmproj!r}: no such file")
        options["mmproj"] = args.mmproj
    elif args.image:
        options["vision"] = True  # a registry model's projector is fetched when images are sent
    if args.n_gpu_layers is not None:
        options["n_gpu_layers"] = args.n_gpu_layers
    if args.threads:
        options["n_threads"] = args.threads
    logger = logging.getLogger("qwen_runtime")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("qwen-runtime: %(message)s"))
    level = logger.level
    if args.verbose:  # what was chosen: threads, draft source
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    try:
        runtime = load_runtime(args.model, **options)
        try:
            return _run(runtime, request, as_json=args.json)
        finally:
            runtime.close()
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def _build_request(args: argparse.Namespace) -> ChatRequest:
    from .types import ChatRequest, Sampling, SystemMessage, UserMessage

    prompt = sys.stdin.read() if args.prompt == "-" else args.prompt
    tools = _load_tools(args.tools) if args.tools else ()
    choice = args.tool_choice.strip()
    if choice not in ("auto", "required", "none"):
        names = [t.name for t in tools]
        if choice not in names:
            offered = ", ".join(names) if names else "no tools (pass --tools FILE.json)"
            raise UsageError(f"--tool-choice {choice!r} is not one of the offered tools: {offered}")
    elif choice == "required" and not tools:
        raise UsageError("--tool-choice required needs tools (pass --tools FILE.json)")
    thinking = not args.no_think
    sampling = Sampling(
        temperature=args.temperature if args.temperature is not None else (0.6 if thinking else 0.7),
        top_p=0.95 if thinking else 0.8,
        max_tokens=args.max_tokens,
        seed=args.seed,
    )
    messages = (SystemMessage(args.system),) if args.system else ()
    for image in args.image:
        if not expand_home(image).is_file():
            raise UsageError(f"--image {image!r}: no such file")
    return ChatRequest(
        messages=(*messages, UserMessage(prompt, images=tuple(args.image))),
        tools=tools,
        sampling=sampling,
        enable_thinking=thinking,
        tool_choice=choice,
        preserve_thinking=args.preserve_thinking,
        reasoning_effort=args.reasoning_effort,
    )


def _load_tools(file: str) -> tuple[ToolSpec, ...]:
    from .types import ToolSpec

    try:
        data = json.loads(Path(file).read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read tools file {file}: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"tools file {file} is not valid JSON: {exc}") from None
    if isinstance(data, dict) and isinstance(data.get("tools"), list):
        data = data["tools"]
    if not isinstance(data, list):
        raise UsageError(f"tools file {file} must hold a JSON list of tool definitions")
    tools: list[ToolSpec] = []
    for index, item in enumerate(data):
        if not isinstance(item, dict):
            raise UsageError(f"tools file {file}: item {index} is not a JSON object")
        try:
            tool = ToolSpec.from_dict(item)
        except (ValueError, TypeError) as exc:
            raise UsageError(f"tools file {file}: item {index}: {exc}") from None
        if not isinstance(tool.parameters, dict):
            raise UsageError(f"tools file {file}: tool {tool.name!r} has parameters that are not an object")
        tools.append(tool)
    names = [t.name for t in tools]
    if duplicates := sorted({n for n in names if names.count(n) > 1}):
        raise UsageError(f"tools file {file} defines {', '.join(duplicates)} more than once")
    return tuple(tools)


def _run(runtime: Any, request: ChatRequest, *, as_json: bool) -> int:
    from .runtime import CancelToken
    from .types import Completion, ReasoningDelta, TextDelta, ToolCallError, ToolCallEvent

    cancel = CancelToken()
    completion = Completion()
    dim, reset = _dim_codes(sys.stderr)
    in_reasoning = False
    line_open = False  # stdout has text not yet ended by a newline
    try:
        for event in runtime.stream(request, cancel):
            completion.add(event)
            if as_json:
                continue
            if isinstance(event, ReasoningDelta):
                if not in_reasoning:
                    sys.stderr.write(dim)
                    in_reasoning = True
                sys.stderr.write(event.text)
                sys.stderr.flush()
                continue
            if in_reasoning:
                sys.stderr.write(reset + "\n")
                in_reasoning = False
            if isinstance(event, TextDelta) and event.text:
                sys.stdout.write(event.text)
                sys.stdout.flush()
                line_open = not event.text.endswith("\n")
            elif isinstance(event, ToolCallEvent):
                start = "\n" if line_open else ""
                sys.stdout.write(f"{start}[tool call {event.call.name} {event.call.arguments_json()}]\n")
                line_open = False
            elif isinstance(event, ToolCallError):
                print(f"\n[bad tool call: {event.message}]", file=sys.stderr)
    except KeyboardInterrupt:
        cancel.cancel()
        raise
    finally:
        if in_reasoning:
            sys.stderr.write(reset + "\n")
    if as_json:
        print(json.dumps(completion.to_dict(), ensure_ascii=False))
    elif line_open:
        print()
    if completion.finish_reason == "error":
        print(f"qwen-runtime: error: {completion.finish_detail or 'generation failed'}", file=sys.stderr)
        return 1
    return 0


def _dim_codes(stream: TextIO) -> tuple[str, str]:
    if os.environ.get("NO_COLOR") or not stream.isatty():
        return "", ""
    return "\x1b[2m", "\x1b[0m"


if __name__ == "__main__":
    sys.exit(main())
