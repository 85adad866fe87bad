"""The `/init` request: the model explores the repository and writes or improves AGENTS.md."""

INIT_PROMPT = """\
Explore this repository and write (or improve, if it exists) AGENTS.md at the repository root: \
the instructions a coding agent needs to work here. First look around: list the root directory, \
read the README and the build files (pyproject.toml, package.json, Makefile, Cargo.toml, ...), \
and search for the test setup. Then write AGENTS.md, under 60 lines, short and factual:
- how to set up, build, lint and test (exact commands);
- the layout: the main folders and what they hold;
- conventions that are not obvious (style, naming, where tests go, anything surprising).
If AGENTS.md exists, read it first and keep what is still true; edit it rather than replacing it. \
Do not invent commands you did not see evidence for. When done, say in one or two sentences what \
you wrote."""
