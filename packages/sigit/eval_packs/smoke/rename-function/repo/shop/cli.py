"""Command line: python -m shop.cli 2x3.5 1x4"""

import sys

from shop.orders import calc_total


def main(argv):
    lines = []
    for item in argv:
        qty, price = item.split("x")
        lines.append((int(qty), float(price)))
    print(f"{calc_total(lines):.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
