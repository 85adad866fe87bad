"""python -m temps.cli 100 C F"""

import argparse

from temps.units import CONVERSIONS

UNITS = ("C", "F")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="temps")
    parser.add_argument("value", type=float)
    parser.add_argument("source", choices=UNITS)
    parser.add_argument("target", choices=UNITS)
    args = parser.parse_args(argv)
    convert = CONVERSIONS[(args.source, args.target)]
    print(f"{convert(args.value):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
