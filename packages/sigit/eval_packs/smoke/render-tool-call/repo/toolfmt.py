def render_call(name: str, args: dict[str, str]) -> str:
    """Render tool calls the way the model writes them.

    render_call("read_file", {"path": "a.py", "limit": "10"}) returns exactly:

    <tool_call>
    <function=read_file>
    <parameter=path>
    a.py
    </parameter>
    <parameter=limit>
    10
    </parameter>
    </function>
    </tool_call>

    Parameters come in the order of `args`; a value is written as it is, even when it holds
    `</parameter>` itself. With no parameters, the function line is followed by `</function>`.
    """
    raise NotImplementedError
