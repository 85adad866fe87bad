"""make needs recipe lines that start with a tab; spaces give "missing separator"."""
import sys

lines = open("Makefile", encoding="utf-8").read().splitlines()
problems = []
try:
    at = lines.index("clean:")
except ValueError:
    sys.exit("no line that is exactly `clean:`")
if at + 1 >= len(lines) or lines[at + 1] != "\trm -f hello":
    problems.append(f"clean's recipe is {lines[at + 1:at + 2]!r}, not a tab then `rm -f hello`")
phony = [line for line in lines if line.startswith(".PHONY:")]
if len(phony) != 1 or set(phony[0].split()[1:]) != {"all", "clean"}:
    problems.append(f".PHONY lines: {phony!r}")
if "\t$(CC) $(CFLAGS) -o hello hello.c" not in lines:
    problems.append("the hello recipe lost its tab")
for number, line in enumerate(lines, 1):
    if line != line.rstrip():
        problems.append(f"line {number} has trailing whitespace")
    if line.startswith(" "):
        problems.append(f"line {number} starts with spaces")
if problems:
    sys.exit("\n".join(problems))
