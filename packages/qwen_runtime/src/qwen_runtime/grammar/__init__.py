"""Constrained decoding: what a tool call may be, as an llguidance grammar.

`toolschema` normalises a tool's JSON Schema (`$ref`, unions, bounds) into what a grammar can hold;
`toolformat` reads a chat template's call format (JSON in `<tool_call>` or Qwen3-Coder's XML);
`constrain` builds the lazy grammar a reply is held to, `xml_form` its XML-form values, and `budget`
closes a call in time when `max_tokens` is near.
"""
