# TODO: load settings from a file
import sys


def main():
    # TODO handle --help
    print(sys.argv)
