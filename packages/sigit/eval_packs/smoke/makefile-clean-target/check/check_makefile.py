"""make needs recipe lines that start with a tab; spaces give "missing separator".

Graded by what make does, not by how the Makefile is spelled: every correct answer passes (`$(RM) hello`
or `rm -f hello`, one `.PHONY` line or two). The task `needs` make: where it is not installed the task
grades as an environment error, never by how the lines are spelled.
"""
import os
import re
import subprocess
import sys

ENV = {**os.environ, "MAKEFLAGS": "", "MAKELEVEL": ""}
for name in ("CC", "CFLAGS", "RM"):
    ENV.pop(name, None)


def make(*args):
    proc = subprocess.run(["make", "--no-print-directory", *args], capture_output=True, text=True, env=ENV)
    return proc.returncode, (proc.stdout + proc.stderr).strip()


def phony_targets(lines):
    found = set()
    for line in lines:
        if line.startswith(".PHONY:"):
            found.update(line.split(":", 1)[1].split())
    return found


def with_make():
    problems = []
    code, out = make("-n", "-B", "hello")
    if code != 0 or out != "cc -O2 -Wall -o hello hello.c":
        problems.append(f"`make -n hello` says {out!r}: the hello recipe changed or lost its tab")
    code, out = make("-n", "clean")
    if code != 0 or out != "rm -f hello":
        problems.append(f"`make -n clean` says {out!r}, not `rm -f hello`")
    code, database = make("-p", "-n", "-q", "-r", "-f", "Makefile", "-f", "/dev/null")
    phony = phony_targets(database.splitlines())
    if not {"all", "clean"} <= phony:
        problems.append(f".PHONY lists {sorted(phony)}, not all and clean")
    if problems:
        return problems
    # and the recipe does what it says: a file named `clean` does not stop it, a missing hello is no error
    with open("hello", "w") as handle:
        handle.write("built\n")
    with open("clean", "w") as handle:
        handle.write("a file named clean\n")
    code, out = make("clean")
    if code != 0 or os.path.exists("hello"):
        problems.append(f"`make clean` left hello behind: {out}")
    code, out = make("clean")
    if code != 0:
        problems.append(f"`make clean` fails when hello is already gone: {out}")
    os.remove("clean")
    return problems


problems = with_make()
if problems:
    sys.exit("\n".join(problems))
print("ok")
