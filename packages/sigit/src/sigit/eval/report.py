"""What a run says, three ways: a Markdown report to paste in an issue, JSON for machines, and the
rows of the terminal table (the CLI draws them with rich).

The report carries what makes a pass rate comparable (the exact sigit, model file, stack, machine,
tasks and command line) and names its figures the way Aider's benchmark does where they mean the same,
so a reader knows which of Aider's numbers ours stands beside (`pass_rate_1`) and which it does not.
"""

from __future__ import annotations

import dataclasses
import shlex
import time
from collections.abc import Mapping, Sequence
from typing import Any

from .results import OUTCOME_WORDS, OUTCOMES, TaskResult
from .summary import SettingTotals, Summary

AIDER_NOTE = (
    "pass@1 is the figure to set beside Aider's `pass_rate_1`: one try per task, graded by tests the model "
    "never saw. Aider's `pass_rate_2` (a second try after the model is shown the failing tests' output) has "
    "no counterpart here: pass@k is k independent tries, and the hidden tests' output is never shown. "
    "well-formed is `percent_cases_well_formed`; malformed calls `num_malformed_responses`; syntax errors "
    "`syntax_errors`; context exhaustions `exhausted_context_windows`; test timeouts `test_timeouts`; "
    "s/case `seconds_per_case`. The task sets differ (Aider: 225 Exercism exercises in six languages; run "
    "`sigit eval` on that checkout for the same tasks)."
)
FOOTNOTE = (
    "pass@1: solved attempts over attempts, with a 95% Wilson interval; pass@k: the unbiased estimator over "
    "k of the attempts per task, with a 95% Wilson interval over tasks; differences: paired by task and "
    "attempt, with Newcombe's 95% interval. well-formed: attempts whose every tool call parsed and validated. "
    "s/case: mean seconds per attempt, agent and check. tokens/case: mean prompt/completion tokens per "
    "attempt, time-limited attempts included. tok/s: decode speed while the reply streamed (median). peak "
    "MB: the sigit process's memory high-water mark (the model's, when local); check MB: the check's."
)


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def tests_cell(r: TaskResult) -> str | None:
    """`passed/failed/missing` when the grader counted the tests one by one, else None."""
    counts = [getattr(r, name, None) for name in ("tests_passed", "tests_failed", "tests_missing")]
    if all(c is None for c in counts):
        return None
    return "/".join("-" if c is None else str(c) for c in counts)


def task_row(r: TaskResult) -> list[str]:
    """One attempt, as the table and the report print it."""
    calls = f"{r.tool_calls}" + (
        f" ({r.invalid_calls + r.unparsed_calls} bad)" if r.invalid_calls or r.unparsed_calls else ""
    )
    return [
        r.task_id,
        str(r.attempt),
        r.setting,
        OUTCOME_WORDS.get(r.outcome, r.outcome),
        str(r.turns),
        calls,
        f"{r.edits_landed}/{r.edits_attempted}",
        f"{r.prompt_tokens}/{r.completion_tokens}",
        _num(r.decode_tokens_per_s),
        _num(r.wall_s),
        _num(r.check_peak_rss_mb, 0),
    ]


TASK_HEADER = [
    "task",
    "try",
    "setting",
    "outcome",
    "turns",
    "calls",
    "edits landed",
    "tokens in/out",
    "tok/s",
    "s",
    "check MB",
]
TESTS_HEADER = "tests passed/failed/missing"


def task_table(results: Sequence[TaskResult]) -> tuple[list[str], list[list[str]]]:
    """The attempts' header and rows, with the per-test counts column when the grader gave any."""
    ordered = _ordered(results)
    counted = any(tests_cell(r) is not None for r in ordered)
    header = [*TASK_HEADER[:4], TESTS_HEADER, *TASK_HEADER[4:]] if counted else list(TASK_HEADER)
    rows = []
    for r in ordered:
        row = task_row(r)
        rows.append([*row[:4], tests_cell(r) or "-", *row[4:]] if counted else row)
    return header, rows


def totals_row(t: SettingTotals, repeat: int) -> list[str]:
    if repeat > 1 and t.pass_at_k_interval is not None:
        at_k = t.pass_at_k_interval.display()
    elif repeat > 1 and repeat in t.pass_at_k:
        at_k = f"{t.pass_at_k[repeat]:.0%}"
    else:
        at_k = "-"
    return [
        t.setting,
        f"{t.solved}/{t.attempts}",
        t.pass_at_1.display(),
        at_k,
        f"{t.well_formed_share:.0%} ({t.well_formed}/{t.attempts})",
        f"{t.malformed_calls} in {t.with_malformed}",
        str(t.syntax_errors),
        str(t.context_exhaustions),
        str(t.test_timeouts),
        _num(t.seconds_per_case),
        f"{t.prompt_tokens_per_case:.0f}/{t.completion_tokens_per_case:.0f}",
        f"{t.turns:.1f}",
        _num(t.decode_tokens_per_s),
        _num(t.agent_peak_rss_mb, 0),
    ]


def totals_header(repeat: int) -> list[str]:
    return [
        "setting",
        "solved",
        "pass@1 (95% CI)",
        f"pass@{repeat} (95% CI)" if repeat > 1 else "pass@k",
        "well-formed",
        "malformed calls (in attempts)",
        "syntax errors",
        "context exhaustions",
        "test timeouts",
        "s/case",
        "tokens/case in/out",
        "turns/task",
        "tok/s (median)",
        "peak MB",
    ]


def outcome_line(t: SettingTotals) -> str:
    return ", ".join(f"{OUTCOME_WORDS.get(o, o)} {t.outcomes[o]}" for o in OUTCOMES if t.outcomes.get(o))


def comparison_lines(summary: Summary) -> list[str]:
    lines = []
    for c in summary.comparisons:
        d = c.difference
        verdict = (
            "a real difference at 95%"
            if d.significant
            else "not distinguishable from no difference at 95%: run more tasks or --repeat"
        )
        lines.append(
            f"{c.other} vs {c.baseline}: {d.display()} over {d.pairs} paired attempts "
            f"({d.only_a} solved only by {c.other}, {d.only_b} only by {c.baseline}); {verdict}"
        )
    return lines


def invalid_lines(summary: Summary) -> list[str]:
    return [f"{task}: {why}" for task, why in sorted(summary.invalid.items())]


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return out


def _software(machine: Mapping[str, Any]) -> str:
    commit = machine.get("sigit_commit")
    build = f"commit {commit[:12]}" if commit else "not a git checkout"
    if commit and machine.get("sigit_dirty"):
        build += ", with uncommitted changes"
    parts = [f"sigit {machine.get('sigit', '?')} ({build})"]
    for name, version in (machine.get("versions") or {}).items():
        if name != "sigit-agent":
            parts.append(f"{name} {version or 'not installed'}")
    parts.append(f"Python {machine.get('python', '?')}")
    return ", ".join(parts)


def _hardware(machine: Mapping[str, Any]) -> str:
    ram = machine.get("ram_gb")
    return (
        f"{machine.get('cpu_model') or 'CPU model unknown'}, {machine.get('cpus', '?')} cores, "
        f"{f'{ram:g} GB RAM' if ram else 'RAM unknown'}; {machine.get('platform', '?')}"
    )


def _model_file(facts: Mapping[str, Any]) -> str:
    if not facts:
        return ""
    size = facts.get("size")
    bits = [
        f"{facts.get('name') or facts.get('path')}",
        f"architecture {facts.get('architecture') or '?'}",
        f"quantisation {facts.get('quantisation') or '?'}",
    ]
    if size:
        bits.append(f"{size / 1024**3:.2f} GiB")
    bits.append(f"sha256 {facts.get('sha256') or '?'}")
    return "; model file: " + ", ".join(bits)


def header_lines(run: Mapping[str, Any], results: Sequence[TaskResult], repeat: int) -> list[str]:
    """What ran: when, which tasks, the command, the software, the machine, every setting and its model."""
    machine = run.get("machine", {})
    started = run.get("started_at")
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)) if started else "?"
    pack = f" (hash {run['pack_hash']})" if run.get("pack_hash") else ""
    lines = [
        f"- run: {when}; packs: {', '.join(run.get('sources', [])) or '?'}{pack}; "
        f"{len(run.get('tasks', []))} tasks x {repeat} attempt{'s' if repeat != 1 else ''}",
    ]
    if run.get("command"):
        lines.append(f"- command: `{shlex.join(run['command'])}`")
    lines += [f"- software: {_software(machine)}", f"- machine: {_hardware(machine)}"]
    if run.get("limits"):
        lines.append("- caps on every task: " + ", ".join(f"{k} {v}" for k, v in run["limits"].items()))
    temps = {(r.setting, r.temperature) for r in results}
    models = run.get("models", {})
    hidden = ("name", "flags", "model_sha256", "settings_sha256")
    for setting in run.get("settings", []):
        shown = {k: v for k, v in setting.items() if v not in (None, [], "") and k not in hidden}
        used = sorted({t for s, t in temps if s == setting["name"] and t is not None})
        if used:
            shown["temperature (as sampled)"] = ", ".join(f"{t:g}" for t in used)
        flags = " ".join(setting.get("flags", []))
        lines.append(
            f"- setting **{setting['name']}**: "
            + ", ".join(f"{k} {v}" for k, v in shown.items())
            + (f" (flags: `{flags}`)" if flags else "")
            + _model_file(models.get(setting["name"], {}))
        )
    return lines


def aider_fields(t: SettingTotals, run: Mapping[str, Any], repeat: int) -> dict[str, Any]:
    """The setting's figures under the names Aider's benchmark gives them, where they mean the same."""
    started = run.get("started_at")
    out: dict[str, Any] = {
        "pass_rate_1": round(100 * t.pass_at_1.value, 1),
        "percent_cases_well_formed": round(100 * t.well_formed_share, 1),
        "num_malformed_responses": t.malformed_calls,
        "num_with_malformed_responses": t.with_malformed,
        "syntax_errors": t.syntax_errors,
        "exhausted_context_windows": t.context_exhaustions,
        "test_timeouts": t.test_timeouts,
        "total_tests": t.attempts,
        "seconds_per_case": round(t.seconds_per_case, 1),
        "prompt_tokens": t.prompt_tokens,
        "completion_tokens": t.completion_tokens,
        "command": shlex.join(run.get("command", [])) or None,
        "date": time.strftime("%Y-%m-%d", time.gmtime(started)) if started else None,
        "versions": (run.get("machine") or {}).get("sigit"),
    }
    if repeat > 1 and repeat in t.pass_at_k:
        out[f"pass_at_{repeat}"] = round(100 * t.pass_at_k[repeat], 1)  # not Aider's pass_rate_2
    return out


def _yaml(fields: Mapping[str, Any]) -> list[str]:
    def value(v: Any) -> str:
        if v is None:
            return "null"
        if isinstance(v, str):
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        return str(v)

    return [f"  {k}: {value(v)}" for k, v in fields.items()]


def markdown(summary: Summary, results: Sequence[TaskResult], run: Mapping[str, Any], repeat: int) -> str:
    """The report: what ran, the totals, Aider's names for them, the differences, invalid tasks, each attempt."""
    counted = [r for r in results if r.task_id not in summary.invalid]
    lines = ["# sigit eval report", "", *header_lines(run, results, repeat), "", "## Totals", ""]
    lines += _table(totals_header(repeat), [totals_row(t, repeat) for t in summary.totals])
    lines += [""] + [f"- {t.setting}: {outcome_line(t)}" for t in summary.totals]
    lines += ["", "## Against Aider's benchmark", "", AIDER_NOTE, "", "```yaml"]
    for t in summary.totals:
        lines += [f"- setting: {t.setting}", *_yaml(aider_fields(t, run, repeat))]
    lines += ["```"]
    if summary.comparisons:
        lines += ["", "## Differences", ""] + [f"- {line}" for line in comparison_lines(summary)]
    if summary.invalid:
        lines += [
            "",
            "## Invalid tasks (left out of the totals)",
            "",
            "`sigit eval --validate` found these tasks broken: their reference solution fails, or their "
            "untouched starting files pass, under the grader. Their attempts count for no setting.",
            "",
        ]
        lines += [f"- {line}" for line in invalid_lines(summary)]
    header, rows = task_table(counted)
    lines += ["", "## Tasks", ""]
    lines += _table([*header, "why"], [[*row, r.detail] for row, r in zip(rows, _ordered(counted), strict=True)])
    lines += ["", FOOTNOTE, ""]
    return "\n".join(lines)


def as_json(summary: Summary, results: Sequence[TaskResult], run: Mapping[str, Any], repeat: int = 1) -> dict[str, Any]:
    return {
        "run": dict(run),
        "totals": [
            dataclasses.asdict(t) | {"well_formed_share": t.well_formed_share, "aider": aider_fields(t, run, repeat)}
            for t in summary.totals
        ],
        "comparisons": [dataclasses.asdict(c) | {"significant": c.difference.significant} for c in summary.comparisons],
        "invalid_tasks": summary.invalid,
        "results": [{k: v for k, v in r.to_json().items() if k not in ("type", "diff")} for r in _ordered(results)],
    }


def _ordered(results: Sequence[TaskResult]) -> list[TaskResult]:
    return sorted(results, key=lambda r: (r.task_id, r.attempt, r.setting))
