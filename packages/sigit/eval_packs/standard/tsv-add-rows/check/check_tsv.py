import sys

lines = open("data/products.tsv", encoding="utf-8", newline="").read().split("\n")
if lines[-1] == "":
    lines.pop()
rows = [line.split("\t") for line in lines]
expected = [["sku", "name", "price_cents"], ["A100", "Red mug", "850"], ["A101", "Blue mug", "850"],
            ["B200", "Tea towel, linen", "1200"], ["C300", "Oak coaster set", "1500"],
            ["C301", "Cork board", "2250"]]
if rows != expected:
    sys.exit(f"rows are {rows!r}")
