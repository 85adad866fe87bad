import ast
import hashlib
import unittest
from pathlib import Path

from pipeline import validators

SAMPLES = [(1, 'ab', True), (1, 'abcdefghijklmnop', False), (1, 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', False), (219, 'ab', False), (219, 'abcdefghijklmnop', True), (219, 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', False), (220, 'ab', True), (220, 'abcdefghijklmnop', True), (220, 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', True), (221, 'ab', True), (221, 'abcdefghijklmnop', False), (221, 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', False), (440, 'ab', True), (440, 'abcdefghijklmnop', True), (440, 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', False)]


FILE = Path(__file__).resolve().parents[1] / "pipeline/validators.py"
TARGET = "validate_iban"
REST_SHA256 = "7ea502f627ec2e7fb72c677b59aed2b287298a515bd41be2a37d69a0bbc4561f"
"""Every line of the file outside TARGET, blank lines left out, as the task started."""


def rest_of_file(text, target):
    """The file without `target` (its decorators, def and body) and without blank lines: what must not change."""
    tree = ast.parse(text)
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == target)
    start = (node.decorator_list[0].lineno if node.decorator_list else node.lineno) - 1
    lines = text.splitlines()
    return "\n".join(line for line in lines[:start] + lines[node.end_lineno :] if line.strip())


class IbanTest(unittest.TestCase):
    def test_valid(self):
        for iban in ("GB82 WEST 1234 5698 7654 32", "DE89370400440532013000", "fr1420041010050500013m02606"):
            self.assertTrue(validators.validate_iban(iban), iban)

    def test_invalid(self):
        for iban in ("GB82 WEST 1234 5698 7654 33", "DE89370400440532013001", "GB", 42, "GB82-WEST"):
            self.assertFalse(validators.validate_iban(iban), iban)

    def test_the_rest_is_untouched(self):
        names = [n for n in dir(validators) if n.startswith("validate_field_")]
        self.assertEqual(len(names), 440)
        for i, value, ok in SAMPLES:
            self.assertEqual(getattr(validators, f"validate_field_{i:04d}")(value), ok, (i, value))

    def test_every_other_line_of_the_file_is_as_it_was(self):
        """The whole file, not a sample: every other function, constant and comment byte for byte."""
        text = FILE.read_text(encoding="utf-8")
        self.assertEqual(
            hashlib.sha256(rest_of_file(text, TARGET).encode()).hexdigest(),
            REST_SHA256,
            "a line outside " + TARGET + " was changed",
        )
