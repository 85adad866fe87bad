import sys

expected = '# Tool-call protocol\n\nThe model asks for a tool by writing a block like this one:\n\n```\n<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/app.py\n</parameter>\n<parameter=limit>\n200\n</parameter>\n</function>\n</tool_call>\n```\n\nValues are written raw: a value may itself contain `</parameter>`, which is why the runtime\nonly ends a parameter at `</parameter>` followed by a newline and `<parameter=` or `</function>`.\n\nThe reply to a call comes back as `<tool_response>...</tool_response>`.\n'
actual = open("docs/protocol.md", encoding="utf-8").read()
if actual != expected:
    for number, (a, e) in enumerate(zip(actual.splitlines(), expected.splitlines()), 1):
        if a != e:
            sys.exit(f"line {number} is {a!r}, expected {e!r}")
    sys.exit("docs/protocol.md differs from the expected text (length or final newline)")
