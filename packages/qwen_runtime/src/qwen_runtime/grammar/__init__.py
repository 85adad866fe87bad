"""Constrained decoding: what a reply may be while a tool call is owed, as an llguidance grammar.

`constrain` builds the lazy grammar a reply is held to from the tools' schemas (`calls.toolschema`)
and call format (`calls.toolformat`); `xml_form` holds Qwen3-Coder's XML-form values to their schema,
and `budget` closes a call in time when `max_tokens` is near.
"""
