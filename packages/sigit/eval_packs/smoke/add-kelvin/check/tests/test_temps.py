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

    def test_kelvin_from_celsius(self):
        self.assertEqual(run("0", "C", "K"), "273.15")
        self.assertAlmostEqual(units.c_to_k(-273.15), 0.0)

    def test_celsius_from_kelvin(self):
        self.assertEqual(run("300", "K", "C"), "26.85")
        self.assertAlmostEqual(units.k_to_c(273.15), 0.0)
