import importlib
import pathlib
import unittest


class ModuleRenameTest(unittest.TestCase):
    def test_new_module(self):
        textutils = importlib.import_module("cmds.textutils")
        self.assertEqual(textutils.shout("hi"), "HI!")

    def test_users_import_the_new_module(self):
        from cmds.greet import greet
        from cmds.report import report

        self.assertEqual(greet("bo"), "HELLO BO!")
        self.assertEqual(report(["a", "b"]), "  a\n  b")
        for path in pathlib.Path("cmds").glob("*.py"):
            imports = [line for line in path.read_text().splitlines() if line.startswith(("from", "import"))]
            self.assertFalse([line for line in imports if "helpers" in line], path)

    def test_old_module_is_gone(self):
        self.assertFalse(pathlib.Path("cmds/helpers.py").exists())
        with self.assertRaises(ModuleNotFoundError):
            importlib.import_module("cmds.helpers")
