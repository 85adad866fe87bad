"""What a run says, three ways: a Markdown report to paste in an issue, JSON for machines, and the
rows of the terminal table (the CLI draws them with rich)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import Any

from .results import OUTCOME_WORDS, OUTCOMES, TaskResult
from .summary import SettingTotals, Summary


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def task_row(r: TaskResult) -> list[str]:
    """One attempt, as the table and the report print it."""
    calls = f"{r.tool_calls}" + (
        f" ({r.invalid_calls + r.unparsed_calls} bad)" if r.invalid_calls or r.unparsed_calls else ""
    )
    return [
        r.task_id,
        str(r.attempt),
        r.setting,
        OUTCOME_WORDS[r.outcome],
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
    "wall s",
    "check MB",
]


def totals_row(t: SettingTotals, repeat: int) -> list[str]:
    at_k = f"{t.pass_at_k[repeat]:.0%}" if repeat > 1 and repeat in t.pass_at_k else "-"
    return [
        t.setting,
        f"{t.solved}/{t.attempts}",
        t.pass_at_1.display(),
        at_k,
        f"{t.turns:.1f}",
        f"{t.tool_calls} ({t.invalid_calls} invalid, {t.unparsed_calls} unparsed)",
        f"{t.edits_landed}/{t.edits_attempted}",
        f"{t.prompt_tokens}/{t.completion_tokens}",
        _num(t.decode_tokens_per_s),
        _num(t.wall_s),
        _num(t.agent_peak_rss_mb, 0),
    ]


def totals_header(repeat: int) -> list[str]:
    return [
        "setting",
        "solved",
        "pass@1 (95% CI)",
        f"pass@{repeat}" if repeat > 1 else "pass@k",
        "turns/task",
        "tool calls",
        "edits landed",
        "tokens in/out",
        "tok/s (median)",
        "wall s",
        "peak MB",
    ]


def outcome_line(t: SettingTotals) -> str:
    return ", ".join(f"{OUTCOME_WORDS[o]} {t.outcomes[o]}" for o in OUTCOMES if t.outcomes.get(o))


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


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return out


def markdown(summary: Summary, results: Sequence[TaskResult], run: dict[str, Any], repeat: int) -> str:
    """The report: what ran (every setting, the machine), the totals, the differences, each attempt."""
    machine = run.get("machine", {})
    lines = ["# sigit eval report", ""]
    started = run.get("started_at")
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)) if started else "?"
    lines += [
        f"- run: {when}; packs: {', '.join(run.get('sources', [])) or '?'}; "
        f"{len(run.get('tasks', []))} tasks x {repeat} attempt{'s' if repeat != 1 else ''}",
        f"- machine: sigit {machine.get('sigit', '?')}, Python {machine.get('python', '?')}, "
        f"{machine.get('platform', '?')}, {machine.get('cpus', '?')} CPUs",
    ]
    if run.get("limits"):
        lines.append("- caps on every task: " + ", ".join(f"{k} {v}" for k, v in run["limits"].items()))
    temps = {(r.setting, r.temperature) for r in results}
    for setting in run.get("settings", []):
        shown = {k: v for k, v in setting.items() if v not in (None, [], "") and k not in ("name", "flags")}
        used = sorted({t for s, t in temps if s == setting["name"] and t is not None})
        if used:
            shown["temperature (as sampled)"] = ", ".join(f"{t:g}" for t in used)
        flags = " ".join(setting.get("flags", []))
        lines.append(
            f"- setting **{setting['name']}**: "
            + ", ".join(f"{k} {v}" for k, v in shown.items())
            + (f" (flags: `{flags}`)" if flags else "")
        )
    lines += ["", "## Totals", ""]
    lines += _table(totals_header(repeat), [totals_row(t, repeat) for t in summary.totals])
    lines += [""] + [f"- {t.setting}: {outcome_line(t)}" for t in summary.totals]
    if summary.comparisons:
        lines += ["", "## Differences", ""] + [f"- {line}" for line in comparison_lines(summary)]
    lines += ["", "## Tasks", ""]
    lines += _table([*TASK_HEADER, "why"], [[*task_row(r), r.detail] for r in _ordered(results)])
    lines += [
        "",
        "pass@1: solved attempts over attempts, with a 95% Wilson interval; pass@k: the unbiased "
        "estimator over k of the attempts per task; differences: paired by task and attempt, with "
        "Newcombe's 95% interval. tok/s: decode speed while the reply streamed. peak MB: the sigit "
        "process's memory high-water mark (the model's, when local); check MB: the check's.",
        "",
    ]
    return "\n".join(lines)


def as_json(summary: Summary, results: Sequence[TaskResult], run: dict[str, Any]) -> dict[str, Any]:
    return {
        "run": run,
        "totals": [dataclasses.asdict(t) for t in summary.totals],
        "comparisons": [dataclasses.asdict(c) | {"significant": c.difference.significant} for c in summary.comparisons],
        "results": [{k: v for k, v in r.to_json().items() if k not in ("type", "diff")} for r in _ordered(results)],
    }


def _ordered(results: Sequence[TaskResult]) -> list[TaskResult]:
    return sorted(results, key=lambda r: (r.task_id, r.attempt, r.setting))
