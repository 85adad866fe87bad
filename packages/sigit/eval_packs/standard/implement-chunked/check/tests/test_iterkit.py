import unittest

from iterkit import chunked


class ChunkedTest(unittest.TestCase):
    def test_example(self):
        self.assertEqual(chunked([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]])

    def test_iterables(self):
        self.assertEqual(chunked(iter("abcdef"), 3), [["a", "b", "c"], ["d", "e", "f"]])
        self.assertEqual(chunked(range(0), 4), [])

    def test_bad_size(self):
        with self.assertRaises(ValueError):
            chunked([1], 0)
