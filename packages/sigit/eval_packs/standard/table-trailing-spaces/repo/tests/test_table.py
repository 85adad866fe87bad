import pathlib
import unittest

from table import render


class RenderTest(unittest.TestCase):
    def test_golden(self):
        golden = pathlib.Path(__file__).parent / "golden" / "table.txt"
        rows = [["bolt", 120, "M6"], ["washer", 8, ""], ["nut", 64, "stainless"]]
        self.assertEqual(render(["name", "qty", "note"], rows) + "\n", golden.read_text())
