"""Reply parsing: reasoning, text and tool calls out of decoded model text, damage included."""

from ..calls.json_repair import JsonRepairError, repair_json
from .reply import ReplyParser, new_call_id, parse_reply
from .validate import validate_call

__all__ = [
    "JsonRepairError",
    "ReplyParser",
    "new_call_id",
    "parse_reply",
    "repair_json",
    "validate_call",
]
