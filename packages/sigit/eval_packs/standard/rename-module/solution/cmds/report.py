from cmds import textutils


def report(lines):
    return textutils.indent("\n".join(lines))
