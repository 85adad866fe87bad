import contextlib
import io
import unittest

from temps import cli, units


def run(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cli.main(list(argv))
    return out.getvalue().strip()


class TempsTest(unittest.TestCase):
    def test_celsius_fahrenheit(self):
        self.assertEqual(run("100", "C", "F"), "212.00")
        self.assertEqual(run("32", "F", "C"), "0.00")
