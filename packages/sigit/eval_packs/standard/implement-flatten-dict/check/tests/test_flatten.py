import unittest

from settings_tools import flatten


class FlattenTest(unittest.TestCase):
    def test_example(self):
        self.assertEqual(flatten({"db": {"host": "x", "port": 5432}, "debug": True}),
                         {"db.host": "x", "db.port": 5432, "debug": True})

    def test_deep_and_sep(self):
        self.assertEqual(flatten({"a": {"b": {"c": 1}}}, sep="/"), {"a/b/c": 1})

    def test_empty_and_lists(self):
        self.assertEqual(flatten({"a": {}, "b": [1, {"c": 2}]}), {"b": [1, {"c": 2}]})
