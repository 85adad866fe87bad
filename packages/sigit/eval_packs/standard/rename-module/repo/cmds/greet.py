from cmds.helpers import shout


def greet(name):
    return shout(f"hello {name}")
