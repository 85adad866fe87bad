import argparse

from report.data import ROWS
from report.exporters import EXPORTERS


def main(argv=None):
    parser = argparse.ArgumentParser(prog="report")
    parser.add_argument("--format", choices=sorted(EXPORTERS), default="text")
    args = parser.parse_args(argv)
    print(EXPORTERS[args.format](ROWS))


if __name__ == "__main__":
    main()
