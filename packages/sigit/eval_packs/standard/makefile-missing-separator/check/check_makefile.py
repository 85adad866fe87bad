"""`make test` failed with "missing separator": every target must now run exactly what it ran before.

Graded by what make would run (`make -n`), not by how the Makefile is spelled, so every correct fix
passes (tabs, or `.RECIPEPREFIX`; one `.PHONY` line or several). Where make is missing, the lines are
compared instead.
"""
import os
import shutil
import subprocess
import sys

RUNS = {
    "test": ["python3 -m unittest discover -s tests"],
    "lint": ["python3 -m pyflakes src", "python3 -m pycodestyle src"],
    "dist-clean": ["rm -rf out *.egg-info"],
}
EXPECTED = 'PYTHON ?= python3\n\n.PHONY: test lint dist-clean\n\ntest:\n\t$(PYTHON) -m unittest discover -s tests\n\nlint:\n\t$(PYTHON) -m pyflakes src\n\t$(PYTHON) -m pycodestyle src\n\ndist-clean:\n\trm -rf out *.egg-info\n'
ENV = {**os.environ, "MAKEFLAGS": "", "MAKELEVEL": ""}
ENV.pop("PYTHON", None)


def make(*args):
    proc = subprocess.run(["make", "--no-print-directory", *args], capture_output=True, text=True, env=ENV)
    return proc.returncode, (proc.stdout + proc.stderr).strip()


def with_make():
    problems = []
    for target, commands in {"": RUNS["test"], **RUNS}.items():
        code, out = make("-n", "-B", *([target] if target else []))
        if code != 0 or out.splitlines() != commands:
            shown = f"make -n {target}".strip()
            problems.append(f"`{shown}` says {out!r}, expected {commands!r}")
    _, database = make("-p", "-n", "-q", "-r", "-f", "Makefile", "-f", "/dev/null")
    phony = set()
    for line in database.splitlines():
        if line.startswith(".PHONY:"):
            phony.update(line.split(":", 1)[1].split())
    if not set(RUNS) <= phony:
        problems.append(f".PHONY lists {sorted(phony)}, not {sorted(RUNS)}")
    return problems


def without_make():
    actual = open("Makefile", encoding="utf-8").read()
    if actual.rstrip("\n") == EXPECTED.rstrip("\n"):
        return []
    for number, (a, e) in enumerate(zip(actual.splitlines(), EXPECTED.splitlines()), 1):
        if a != e:
            return [f"line {number} is {a!r}, expected {e!r}"]
    return ["the Makefile's lines differ from the expected ones"]


problems = with_make() if shutil.which("make") else without_make()
if problems:
    sys.exit("\n".join(problems))
print("ok")
