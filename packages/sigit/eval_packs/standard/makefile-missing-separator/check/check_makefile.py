import sys

expected = 'PYTHON ?= python3\n\n.PHONY: test lint dist-clean\n\ntest:\n\t$(PYTHON) -m unittest discover -s tests\n\nlint:\n\t$(PYTHON) -m pyflakes src\n\t$(PYTHON) -m pycodestyle src\n\ndist-clean:\n\trm -rf out *.egg-info\n'
actual = open("Makefile", encoding="utf-8").read()
if actual.rstrip("\n") != expected.rstrip("\n"):
    for number, (a, e) in enumerate(zip(actual.splitlines(), expected.splitlines()), 1):
        if a != e:
            sys.exit(f"line {number} is {a!r}, expected {e!r}")
    sys.exit("the Makefile's lines differ from the expected ones")
