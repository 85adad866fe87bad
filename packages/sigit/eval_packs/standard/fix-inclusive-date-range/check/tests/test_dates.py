import datetime as dt
import unittest

from dates import days_between


class DaysBetweenTest(unittest.TestCase):
    def test_week(self):
        days = days_between(dt.date(2024, 2, 26), dt.date(2024, 3, 3))
        self.assertEqual(len(days), 7)
        self.assertEqual(days[3], dt.date(2024, 2, 29))
        self.assertEqual(days[-1], dt.date(2024, 3, 3))

    def test_single_day(self):
        self.assertEqual(days_between(dt.date(2024, 1, 1), dt.date(2024, 1, 1)), [dt.date(2024, 1, 1)])

    def test_backwards_is_empty(self):
        self.assertEqual(days_between(dt.date(2024, 1, 2), dt.date(2024, 1, 1)), [])
