import unittest

from slots import merge


class MergeTest(unittest.TestCase):
    def test_overlap(self):
        self.assertEqual(merge([(1, 3), (2, 5)]), [(1, 5)])

    def test_unsorted(self):
        self.assertEqual(merge([(8, 9), (1, 2), (2, 4)]), [(1, 4), (8, 9)])

    def test_touching(self):
        self.assertEqual(merge([(1, 2), (2, 3)]), [(1, 3)])

    def test_contained(self):
        self.assertEqual(merge([(1, 10), (2, 3)]), [(1, 10)])

    def test_empty(self):
        self.assertEqual(merge([]), [])
