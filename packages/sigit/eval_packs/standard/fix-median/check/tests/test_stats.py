import unittest

from stats import mean, median


class MedianTest(unittest.TestCase):
    def test_odd(self):
        self.assertEqual(median([3, 1, 2]), 2)

    def test_even(self):
        self.assertEqual(median([4, 1, 3, 2]), 2.5)

    def test_input_is_not_reordered(self):
        values = [5, 1, 4]
        median(values)
        self.assertEqual(values, [5, 1, 4])

    def test_empty(self):
        with self.assertRaises(ValueError):
            median([])

    def test_mean(self):
        self.assertEqual(mean([1, 2, 3, 4]), 2.5)
