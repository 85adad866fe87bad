import json
import sys

try:
    cases = json.load(open("tests/fixtures/parser_cases.json", encoding="utf-8"))["cases"]
except ValueError as error:
    sys.exit(f"not valid JSON: {error}")
names = [case["name"] for case in cases]
if names != ["plain answer", "one call", "value holds a closing tag"]:
    sys.exit(f"cases are {names}")
new = cases[2]
reply = ("<tool_call>\n<function=write_file>\n<parameter=content>\nx</parameter>y\n</parameter>\n"
         "</function>\n</tool_call>")
if new["reply"] != reply:
    sys.exit(f"the reply is {new['reply']!r}")
if new["calls"] != [{"name": "write_file", "arguments": {"content": "x</parameter>y"}}]:
    sys.exit(f"the calls are {new['calls']!r}")
if cases[1]["calls"] != [{"name": "read_file", "arguments": {"path": "a.py"}}]:
    sys.exit("the one call case changed")
