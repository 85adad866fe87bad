from cmds.textutils import shout


def greet(name):
    return shout(f"hello {name}")
