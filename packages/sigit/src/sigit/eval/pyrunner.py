"""The Python test runner grading runs (as a script, `python -I pyrunner.py FD MODE ...`, never imported
by sigit): it runs a task's unittest or pytest tests, or its check script, and reports each test's
outcome as JSON lines on the pipe FD that the grader opened before any of the agent's code ran.

Why a runner of ours and not the exit code: the agent's code runs in the test process, and an
`os._exit(0)` at import or from `atexit`, a patched `sys.exit`, or a patched result object decide an
exit code; they do not write "passed" lines for tests that never ran. Before it imports a test module
the runner imports what it uses (a module in the task copy named like a standard one cannot stand in
for it), makes the pipe non-inheritable (the tests' own subprocesses do not get it), and notes the
test framework's methods; at the end a framework the tests' code replaced is reported as tampered.
Standalone on purpose: it runs in the grading sandbox with only the standard library (and pytest, for
pytest checks, from the interpreter's own site-packages).
"""

import io  # noqa: F401 - imported before any test module, like the rest: a copy's io.py cannot stand in
import json
import os
import runpy
import sys
import traceback
import unittest
import unittest.case
import unittest.loader
import unittest.result
import unittest.runner
import unittest.suite

_write = os.write
_dumps = json.dumps


class Channel:
    def __init__(self, fd: int) -> None:
        self.fd = fd
        os.set_inheritable(fd, False)

    def send(self, **record: object) -> None:
        data = (_dumps(record) + "\n").encode("utf-8")
        while data:
            data = data[_write(self.fd, data) :]


def _framework() -> dict[str, object]:
    """The methods a test's outcome goes through, by name (compared before and after the run)."""
    found: dict[str, object] = {}
    for owner in (unittest.TestCase, unittest.TestResult, unittest.TestSuite, unittest.TestLoader):
        for name, value in vars(owner).items():
            if callable(value):
                found[f"{owner.__name__}.{name}"] = value
    found["sys.exit"] = sys.exit
    return found


class Recorder(unittest.TestResult):
    """Sends each test's outcome as it is known (a subtest that fails fails its test)."""

    def __init__(self, channel: Channel) -> None:
        super().__init__()
        self.channel = channel
        self.failed: set[str] = set()

    def _send(self, test: unittest.TestCase, outcome: str, err: object = None) -> None:
        text = ""
        if err is not None:
            try:
                text = "".join(traceback.format_exception(*err))[-1500:]  # type: ignore[misc]
            except Exception:
                text = repr(err)[-1500:]
        self.channel.send(test=test.id(), outcome=outcome, detail=text)

    def addSuccess(self, test: unittest.TestCase) -> None:
        super().addSuccess(test)
        if test.id() not in self.failed:
            self._send(test, "passed")

    def addFailure(self, test: unittest.TestCase, err: object) -> None:
        super().addFailure(test, err)  # type: ignore[arg-type]
        self._send(test, "failed", err)

    def addError(self, test: unittest.TestCase, err: object) -> None:
        super().addError(test, err)  # type: ignore[arg-type]
        self._send(test, "error", err)

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:
        super().addSkip(test, reason)
        self.channel.send(test=test.id(), outcome="skipped", detail=reason)

    def addExpectedFailure(self, test: unittest.TestCase, err: object) -> None:
        super().addExpectedFailure(test, err)  # type: ignore[arg-type]
        self._send(test, "passed")

    def addUnexpectedSuccess(self, test: unittest.TestCase) -> None:
        super().addUnexpectedSuccess(test)
        self._send(test, "failed")

    def addSubTest(self, test: unittest.TestCase, subtest: unittest.TestCase, err: object) -> None:
        super().addSubTest(test, subtest, err)  # type: ignore[arg-type]
        if err is not None:
            self.failed.add(test.id())
            self._send(test, "failed", err)


def _unittest(channel: Channel, root: str, args: list[str]) -> None:
    top: str | None
    names: list[str]
    start, pattern, top, names = ".", "test*.py", None, []
    rest = list(args)
    if rest and rest[0] == "discover":
        rest.pop(0)
        positional: list[str] = []
        while rest:
            word = rest.pop(0)
            if word in ("-s", "--start-directory") and rest:
                start = rest.pop(0)
            elif word in ("-p", "--pattern") and rest:
                pattern = rest.pop(0)
            elif word in ("-t", "--top-level-directory") and rest:
                top = os.path.join(root, rest.pop(0))
            elif not word.startswith("-"):
                positional.append(word)
        start, pattern = (positional + [start, pattern][len(positional) :])[:2] if positional else (start, pattern)
        names = []
    else:
        names = [word for word in rest if not word.startswith("-")]
    loader = unittest.TestLoader()
    if names:
        suite = loader.loadTestsFromNames(names)
    else:
        suite = loader.discover(os.path.join(root, start), pattern=pattern, top_level_dir=top)  # top: as `-m unittest`
    for error in loader.errors:
        channel.send(test="<import>", outcome="error", detail=str(error)[-1500:])
    recorder = Recorder(channel)
    suite.run(recorder)


def _pytest(channel: Channel, root: str, args: list[str]) -> None:
    import pytest

    class Plugin:
        def pytest_runtest_logreport(self, report: "pytest.TestReport") -> None:
            if report.when == "call" or report.outcome != "passed":
                outcome = {"passed": "passed", "failed": "failed" if report.when == "call" else "error"}.get(
                    report.outcome, "skipped"
                )
                channel.send(test=report.nodeid, outcome=outcome, detail=str(report.longrepr or "")[-1500:])

        def pytest_collectreport(self, report: "pytest.CollectReport") -> None:
            if report.failed:
                channel.send(test="<import>", outcome="error", detail=str(report.longrepr)[-1500:])

    pytest.main([*[a for a in args if a != "-m"], "-p", "no:cacheprovider", "-q"], plugins=[Plugin()])


def _script(channel: Channel, root: str, args: list[str]) -> None:
    script, *rest = args
    sys.argv = [script, *rest]
    sys.path.insert(0, os.path.dirname(os.path.join(root, script)))
    outcome, detail = "passed", ""
    try:
        runpy.run_path(os.path.join(root, script), run_name="__main__")
    except SystemExit as exc:
        if exc.code not in (0, None):
            outcome, detail = "failed", f"exit status {exc.code}"
    except BaseException:
        outcome, detail = "failed", traceback.format_exc()[-1500:]
    channel.send(test=script, outcome=outcome, detail=detail)


def _import_path(root: str) -> None:
    """The copy importable as `python -m` makes it, but after the standard library (before site-packages)."""
    at = next((i for i, entry in enumerate(sys.path) if "-packages" in entry), len(sys.path))
    sys.path.insert(at, root)


def main() -> None:
    fd, mode, root, *args = sys.argv[1:]
    channel = Channel(int(fd))
    _import_path(root)
    before = _framework()
    sys.stdout.flush()
    channel.send(event="start")
    {"unittest": _unittest, "pytest": _pytest, "script": _script}[mode](channel, root, args)
    after = _framework()
    changed = sorted(name for name, value in before.items() if after.get(name) is not value)
    channel.send(event="done", tampered=changed)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # the tests' atexit handlers are theirs: the report is sent


if __name__ == "__main__":
    os.chdir(sys.argv[3])
    main()
