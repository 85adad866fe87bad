import importlib
import pathlib
import unittest


def project_files():
    """Every file of the project but this test: "everywhere" means every file, not the package alone."""
    me = pathlib.Path(__file__).resolve()
    for path in sorted(pathlib.Path(".").rglob("*")):
        skip = {".git", "__pycache__", "node_modules"} & set(path.parts)
        if path.is_file() and not skip and path.resolve() != me:
            yield path


class ModuleRenameTest(unittest.TestCase):
    def test_new_module(self):
        textutils = importlib.import_module("cmds.textutils")
        self.assertEqual(textutils.shout("hi"), "HI!")

    def test_users_import_the_new_module(self):
        from cmds.greet import greet
        from cmds.report import report

        self.assertEqual(greet("bo"), "HELLO BO!")
        self.assertEqual(report(["a", "b"]), "  a\n  b")
        for path in project_files():  # every import, wherever it is (indented ones too)
            if path.suffix != ".py":
                continue
            lines = [line.strip() for line in path.read_text().splitlines()]
            imports = [line for line in lines if line.startswith(("from ", "import "))]
            self.assertFalse([line for line in imports if "helpers" in line], path)

    def test_old_module_is_gone(self):
        self.assertFalse(pathlib.Path("cmds/helpers.py").exists())
        with self.assertRaises(ModuleNotFoundError):
            importlib.import_module("cmds.helpers")
