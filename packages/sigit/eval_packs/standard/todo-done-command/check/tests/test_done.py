import contextlib
import io
import os
import tempfile
import unittest

from todo import cli
from todo.store import TodoStore


class DoneTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "todo.json")

    def tearDown(self):
        self.tmp.cleanup()

    def run_cli(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(list(argv), store_path=self.path)
        return code, out.getvalue(), err.getvalue()

    def test_done_marks_the_item(self):
        self.run_cli("add", "milk")
        self.run_cli("add", "eggs")
        self.assertEqual(self.run_cli("done", "2"), (0, "done 2\n", ""))
        self.assertEqual(self.run_cli("list")[1], "[ ] 1 milk\n[x] 2 eggs\n")

    def test_unknown_id(self):
        code, out, err = self.run_cli("done", "7")
        self.assertEqual((code, out), (1, ""))
        self.assertIn("no item 7", err)

    def test_store_method(self):
        store = TodoStore(self.path)
        store.add("a")
        self.assertTrue(store.mark_done(1)["done"])
        with self.assertRaises(KeyError):
            store.mark_done(9)
