"""`sigit eval`: coding tasks run through the real agent on the user's own model, graded by checks
the agent never saw. The built-in packs are data, in packages/sigit/eval_packs/ (a wheel ships them as
`sigit/eval/packs/`; `packs_root` finds them)."""

from .exercism import is_exercism, load_exercism
from .harness import EvalOptions, EvalSetting, Job, jobs_for, run_eval
from .report import as_json, markdown
from .results import OUTCOMES, Outcome, ResultsFile, TaskResult, classify
from .summary import Comparison, SettingTotals, Summary, summarize
from .tasks import (
    Task,
    TaskFormatError,
    builtin_pack_names,
    builtin_pack_path,
    load_all,
    load_task,
    load_tasks,
    packs_root,
)

__all__ = [
    "OUTCOMES",
    "Comparison",
    "EvalOptions",
    "EvalSetting",
    "Job",
    "Outcome",
    "ResultsFile",
    "SettingTotals",
    "Summary",
    "Task",
    "TaskFormatError",
    "TaskResult",
    "as_json",
    "builtin_pack_names",
    "builtin_pack_path",
    "classify",
    "is_exercism",
    "jobs_for",
    "load_all",
    "load_exercism",
    "load_task",
    "load_tasks",
    "markdown",
    "packs_root",
    "run_eval",
    "summarize",
]
