import unittest

from fares.stations import STATIONS, zone_of


class StationsTest(unittest.TestCase):
    def test_fixed_row(self):
        self.assertEqual(zone_of("ST2104"), 3)

    def test_everything_else_unchanged(self):
        self.assertEqual(len(STATIONS), 2200)
        self.assertEqual(STATIONS, [(f"ST{n}", f"Station {n}", 1 + (n * 7919) % 6) for n in range(1000, 3200)])
