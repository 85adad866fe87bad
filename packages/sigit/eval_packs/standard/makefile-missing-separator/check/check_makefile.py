"""`make test` failed with "missing separator": every target must now run exactly what it ran before.

Graded by what make would run (`make -n`), not by how the Makefile is spelled, so every correct fix
passes (tabs, or `.RECIPEPREFIX`; one `.PHONY` line or several). The task `needs` make: where it is not
installed the task grades as an environment error, never by comparing lines.
"""
import os
import subprocess
import sys

RUNS = {
    "test": ["python3 -m unittest discover -s tests"],
    "lint": ["python3 -m pyflakes src", "python3 -m pycodestyle src"],
    "dist-clean": ["rm -rf out *.egg-info"],
}
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


problems = with_make()
if problems:
    sys.exit("\n".join(problems))
print("ok")
