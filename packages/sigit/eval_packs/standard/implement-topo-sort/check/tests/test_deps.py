import unittest

from deps import CycleError, build_order


class BuildOrderTest(unittest.TestCase):
    def test_chain(self):
        self.assertEqual(build_order({"app": ["lib"], "lib": ["core"]}), ["core", "lib", "app"])

    def test_ties_are_alphabetical(self):
        deps = {"web": ["api", "ui"], "ui": ["core"], "api": ["core"], "cli": []}
        self.assertEqual(build_order(deps), ["cli", "core", "api", "ui", "web"])

    def test_cycle(self):
        with self.assertRaises(CycleError):
            build_order({"a": ["b"], "b": ["c"], "c": ["a"]})
        self.assertTrue(issubclass(CycleError, ValueError))

    def test_empty(self):
        self.assertEqual(build_order({}), [])
