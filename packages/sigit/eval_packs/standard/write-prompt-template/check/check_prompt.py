import sys

expected = 'You can call tools. To call one, write:\n\n<tool_call>\n<function=NAME>\n<parameter=ARG>\nVALUE\n</parameter>\n</function>\n</tool_call>\n\nNever write </tool_call> inside a VALUE.\n'
try:
    actual = open("prompts/tools.txt", encoding="utf-8", newline="").read()
except FileNotFoundError:
    sys.exit("prompts/tools.txt is missing")
if actual != expected:
    sys.exit(f"prompts/tools.txt is {actual!r}")
