"""From a check's structured output to a grade, SWE-bench style: each test the task requires must have
run and passed; an exit status alone never passes, and a reported failure never does.

`parse` reads what a check kind reports (our runner's JSON lines, TAP, jest's JSON, `cargo test`
lines, `go test -json`, JUnit XML) into per-test outcomes; `judge` compares them with the tests the
task requires (its `fail_to_pass` and `pass_to_pass`, else every test its check files define).
`environment_problem` tells a machine that cannot run the check (a tool missing, a download needed)
from a check that ran and failed.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .checks import Kind

PASSED = "passed"


@dataclass
class TestReport:
    outcomes: dict[str, str] = field(default_factory=dict)
    """Test id -> passed, failed, error or skipped (a test reported twice keeps its worst)."""
    complete: bool = False
    """The reporter said it finished (our runner's last line; a summary the tool prints at its end)."""
    failure_seen: bool = False
    """The output reports a failure besides the per-test lines (a suite that did not load, a summary)."""
    tampered: tuple[str, ...] = ()
    """Test-framework methods the tests' code replaced while they ran (our Python runner)."""
    details: dict[str, str] = field(default_factory=dict)

    def add(self, test: str, outcome: str, detail: str = "") -> None:
        order = (PASSED, "skipped", "failed", "error")
        old = self.outcomes.get(test)
        if old is None or order.index(outcome if outcome in order else "error") > order.index(old):
            self.outcomes[test] = outcome if outcome in order else "error"
            if detail:
                self.details[test] = detail


@dataclass(frozen=True)
class Verdict:
    passed: bool
    tests_passed: int
    tests_failed: int
    tests_missing: int
    failing: tuple[str, ...] = ()
    """Required tests that failed or never ran (the first few), for the report."""
    reason: str = ""


def parse(
    kind: Kind, output: str, records: Sequence[dict[str, object]] = (), xml_texts: Iterable[str] = ()
) -> TestReport:
    report = TestReport()
    if kind == "python":
        for record in records:
            if record.get("event") == "done":
                report.complete = True
                tampered = record.get("tampered")
                report.tampered = tuple(str(t) for t in tampered) if isinstance(tampered, list) else ()
            elif "test" in record:
                report.add(str(record["test"]), str(record.get("outcome")), str(record.get("detail") or ""))
    elif kind == "node-test":
        _tap(output, report)
    elif kind == "jest":
        _jest(output, report)
    elif kind == "cargo":
        for match in re.finditer(r"^test (\S+) \.\.\. (ok|FAILED|ignored)\s*$", output, re.MULTILINE):
            report.add(match.group(1), {"ok": PASSED, "FAILED": "failed"}.get(match.group(2), "skipped"))
        report.complete = bool(re.search(r"^test result: ", output, re.MULTILINE))
        report.failure_seen = bool(re.search(r"^test result: FAILED|^error(\[E\d+\])?: ", output, re.MULTILINE))
    elif kind == "go":
        _go(output, report)
    elif kind in ("gradle", "catch"):
        texts = list(xml_texts) or ([output[output.find("<?xml") :]] if "<?xml" in output else [])
        for text in texts:
            _junit(text, report)
    return report


def _tap(output: str, report: TestReport) -> None:
    for match in re.finditer(r"^\s*(not ok|ok) \d+ - (.*?)(?: # (SKIP|TODO)\b.*)?$", output, re.MULTILINE):
        outcome = "skipped" if match.group(3) else (PASSED if match.group(1) == "ok" else "failed")
        report.add(match.group(2).strip(), outcome)
    counts = dict(re.findall(r"^# (tests|pass|fail|cancelled) (\d+)$", output, re.MULTILINE))
    report.complete = "tests" in counts
    report.failure_seen = int(counts.get("fail", "0")) > 0 or int(counts.get("cancelled", "0")) > 0


def _jest(output: str, report: TestReport) -> None:
    start = output.find('{"num')
    try:
        data = json.loads(output[start:]) if start >= 0 else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return
    report.complete = True
    report.failure_seen = bool(
        data.get("numFailedTests") or data.get("numFailedTestSuites") or data.get("numRuntimeErrorTestSuites")
    )
    for suite in data.get("testResults") or ():
        for test in suite.get("assertionResults") or ():
            name = " > ".join([*test.get("ancestorTitles", []), str(test.get("title", ""))])
            status = test.get("status")
            report.add(
                name,
                PASSED if status == "passed" else "skipped" if status in ("pending", "skipped", "todo") else "failed",
            )


def _go(output: str, report: TestReport) -> None:
    for line in output.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        action, test = event.get("Action"), event.get("Test")
        if action in ("pass", "fail", "skip"):
            if test:
                report.add(str(test), {"pass": PASSED, "fail": "failed"}.get(str(action), "skipped"))
            else:
                report.complete = True
                report.failure_seen = report.failure_seen or action == "fail"


def _junit(text: str, report: TestReport) -> None:
    try:
        root = ET.fromstring(text.strip())
    except ET.ParseError:
        report.failure_seen = True
        return
    report.complete = True
    for case in root.iter("testcase"):
        name = (case.get("name") or "").removesuffix("()")
        if case.find("failure") is not None or case.find("error") is not None:
            report.add(name, "failed")
        elif case.find("skipped") is not None:
            report.add(name, "skipped")
        else:
            report.add(name, PASSED)


def _normal(name: str) -> str:
    return re.sub(r"\[.*\]$", "", name.replace("::", ".").replace(" > ", "."))


def _runs(required: str, test_id: str) -> bool:
    """Whether the reported `test_id` is (a case of) the `required` test: the same name, or one that ends
    with it after a separator (`module.Class.test`, `tests::name`, `path.py::test[param]`, `Case/Section`)."""
    want, got = _normal(required), _normal(test_id)
    return got == want or got.endswith("." + want) or got.startswith(want + "/") or test_id == required


def judge(
    report: TestReport, expected: Sequence[str], fail_to_pass: Sequence[str] = (), pass_to_pass: Sequence[str] = ()
) -> Verdict:
    """Solved when every required test ran and passed, nothing else reported a failure, the reporter
    finished and no test replaced the framework's methods."""
    named = [*fail_to_pass, *pass_to_pass]
    required = list(dict.fromkeys(named or expected))
    passed = failed = missing = 0
    failing: list[str] = []
    for name in required:
        cases = [outcome for test_id, outcome in report.outcomes.items() if _runs(name, test_id)]
        if not cases:
            missing += 1
            failing.append(f"{name} (did not run)")
        elif all(outcome == PASSED for outcome in cases):
            passed += 1
        else:
            failed += 1
            failing.append(name)
    others_failed = [t for t, o in report.outcomes.items() if o in ("failed", "error")] if not named else []
    reason = ""
    if not required:
        reason = "the check defines no test to require"
    elif report.tampered:
        reason = f"the tests' code replaced the test framework's {', '.join(report.tampered[:3])}"
    elif not report.complete:
        reason = "the test run stopped before it reported its end"
    elif failing:
        reason = f"{failed + missing} of {len(required)} tests did not pass: {', '.join(failing[:5])}"
    elif others_failed:
        reason = f"a test failed: {', '.join(others_failed[:5])}"
    elif report.failure_seen and not named:
        reason = "the check's output reports a failure"
    return Verdict(not reason, passed, failed, missing, tuple(failing[:20]), reason)


ENVIRONMENT_SIGNS = re.compile(
    r"command not found|: not found$|No such file or directory.*(?:cargo|rustc|node|npm|jest|gradle|cmake|go)\b"
    r"|no (?:override and no )?default toolchain|toolchain '[^']*' is not installed|rustup could not choose"
    r"|attempting to make an HTTP request, but --offline was specified|failed to download|Could not resolve host"
    r"|Could not install Gradle distribution|Downloading https?://services\.gradle\.org"
    r"|No CMAKE_(?:CXX|C)_COMPILER could be found|ENOTFOUND|EAI_AGAIN|getaddrinfo|Network is unreachable"
    r"|Cannot find module '[^']*node_modules",
    re.MULTILINE,
)


def environment_problem(returncode: int | None, output: str) -> str | None:
    """The line saying why the machine, not the answer, failed the check; None when nothing says so."""
    match = ENVIRONMENT_SIGNS.search(output)
    if returncode == 127 or match is not None:
        line = next((ln.strip() for ln in output.splitlines() if match and match.group(0) in ln), "")
        return line[:200] or f"the check's command was not found (exit {returncode})"
    return None
