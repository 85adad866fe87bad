"""PyYAML may be missing where this runs: the specific lines are checked with the standard library."""
import sys

lines = open(".github/workflows/tests.yml", encoding="utf-8").read().splitlines()
problems = []
if any("\t" in line for line in lines):
    problems.append("tabs are not allowed in YAML indentation")


def indent(line):
    return len(line) - len(line.lstrip(" "))


def unquote(text):
    text = text.strip()
    return text[1:-1] if len(text) > 1 and text[0] == text[-1] and text[0] in "'\"" else text


at = [i for i, line in enumerate(lines) if line.strip() == "python-version:"]
versions = []
if len(at) != 1:
    problems.append("no single `python-version:` list under matrix")
else:
    for line in lines[at[0] + 1:]:
        if indent(line) <= indent(lines[at[0]]) or not line.strip().startswith("- "):
            break
        versions.append(unquote(line.strip()[2:]))
if versions != ["3.11", "3.12", "3.13"]:
    problems.append(f"matrix python versions are {versions}")

steps_at = [i for i, line in enumerate(lines) if line.strip() == "steps:"]
step_indent = indent(lines[steps_at[0]]) + 2 if steps_at else -1
names = []
for i, line in enumerate(lines):
    if indent(line) == step_indent and line.strip().startswith("- name:"):
        names.append(unquote(line.split(":", 1)[1]))
        if unquote(line.split(":", 1)[1]) == "Lint":
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            if indent(nxt) != step_indent + 2 or unquote(nxt.strip().removeprefix("run:")) != "ruff check .":
                problems.append(f"the Lint step's next line is {nxt!r}")
if names != ["Install", "Lint", "Test"]:
    problems.append(f"named steps are {names}")
for kept in ("name: tests", "    runs-on: ubuntu-latest", "      - uses: actions/checkout@v4",
             "        run: pip install -e \".[dev]\"", "        run: pytest -q"):
    if kept not in lines:
        problems.append(f"lost the line {kept!r}")
if problems:
    sys.exit("\n".join(problems))
