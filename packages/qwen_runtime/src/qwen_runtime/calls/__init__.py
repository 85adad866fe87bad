"""What a tool call is, shared by reading replies (`parsing/`) and constraining them (`grammar/`).

`tags` holds the markers (`<tool_call>`, `<think>`), `toolformat` reads a chat template's call format
(JSON in `<tool_call>` or Qwen3-Coder's XML), `toolschema` normalises a tool's JSON Schema (`$ref`,
unions, bounds) into what both sides enforce and coerces written values to it, and `json_repair`
mends the JSON small models write.
"""
