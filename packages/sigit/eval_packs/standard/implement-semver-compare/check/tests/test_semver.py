import unittest

from semver import compare_versions


class CompareTest(unittest.TestCase):
    def test_numbers_compare_as_numbers(self):
        self.assertEqual(compare_versions("1.10.0", "1.9.0"), 1)
        self.assertEqual(compare_versions("2.0.0", "10.0.0"), -1)
        self.assertEqual(compare_versions("1.2.3", "1.2.3"), 0)

    def test_pre_releases(self):
        order = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
                 "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0"]
        for low, high in zip(order, order[1:]):
            self.assertEqual(compare_versions(low, high), -1, (low, high))
            self.assertEqual(compare_versions(high, low), 1, (high, low))

    def test_bad_versions(self):
        for bad in ("1.2", "1.2.x", "", "1.2.3-"):
            with self.subTest(bad=bad), self.assertRaises(ValueError):
                compare_versions(bad, "1.0.0")
