import unittest

from durations import parse_duration


class DurationTest(unittest.TestCase):
    def test_hours_and_minutes(self):
        self.assertEqual(parse_duration("1h30m"), 5400)

    def test_all_units(self):
        self.assertEqual(parse_duration("2h5m7s"), 7507)
        self.assertEqual(parse_duration(" 45s "), 45)

    def test_junk_is_refused(self):
        for text in ("", "5x", "h", "1h 30m", "ten minutes"):
            with self.subTest(text=text), self.assertRaises(ValueError):
                parse_duration(text)
