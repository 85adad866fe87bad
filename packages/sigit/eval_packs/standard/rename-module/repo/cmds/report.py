from cmds import helpers


def report(lines):
    return helpers.indent("\n".join(lines))
