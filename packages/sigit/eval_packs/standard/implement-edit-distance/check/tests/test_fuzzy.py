import unittest

from fuzzy import closest, edit_distance


class FuzzyTest(unittest.TestCase):
    def test_distance(self):
        self.assertEqual(edit_distance("kitten", "sitting"), 3)
        self.assertEqual(edit_distance("", "abc"), 3)
        self.assertEqual(edit_distance("flaw", "lawn"), 2)
        self.assertEqual(edit_distance("same", "same"), 0)

    def test_closest(self):
        self.assertEqual(closest("comit", ["checkout", "commit", "clone"]), "commit")
        self.assertEqual(closest("ab", ["xb", "ax"]), "xb")
        self.assertIsNone(closest("a", []))
