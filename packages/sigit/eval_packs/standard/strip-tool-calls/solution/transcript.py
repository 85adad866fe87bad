"""Transcripts for people: the model's tool-call blocks are removed from what it said."""


def strip_tool_calls(text):
    """`text` without its <tool_call>...</tool_call> blocks (each block from "<tool_call>" to the
    next "</tool_call>", newlines included), then without blank lines left at either end. Text
    between blocks is kept as it is. An unterminated "<tool_call>" removes the rest of the text.

    >>> strip_tool_calls("Reading it.\n<tool_call>\n<function=read_file>\n</function>\n</tool_call>")
    'Reading it.'
    """
    out = []
    while True:
        start = text.find("<tool_call>")
        if start < 0:
            out.append(text)
            break
        out.append(text[:start])
        end = text.find("</tool_call>", start)
        if end < 0:
            break
        text = text[end + len("</tool_call>"):]
    return "".join(out).strip("\n")
