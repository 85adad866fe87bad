import unittest

import convert


class ConvertTest(unittest.TestCase):
    def test_new_function(self):
        self.assertEqual(convert.fahrenheit_to_celsius(212), 100.0)
        self.assertEqual(convert.fahrenheit_to_celsius(98.6), 37.0)
        self.assertEqual(convert.fahrenheit_to_celsius(-40), -40.0)
        with self.assertRaises(ValueError):
            convert.fahrenheit_to_celsius(-500)

    def test_old_functions(self):
        self.assertEqual(convert.inches_to_cm(10), 25.4)

    def test_indented_with_tabs_only(self):
        with open("convert.py", encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                body = line.rstrip("\n")
                lead = body[: len(body) - len(body.lstrip())]
                self.assertEqual(lead, "\t" * len(lead), f"line {number} is indented with spaces")
                self.assertEqual(body, body.rstrip(), f"line {number} has trailing whitespace")
