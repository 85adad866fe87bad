import unittest

from sizes import human_size


class HumanSizeTest(unittest.TestCase):
    def test_bytes(self):
        self.assertEqual(human_size(0), "0 B")
        self.assertEqual(human_size(1023), "1023 B")

    def test_units(self):
        self.assertEqual(human_size(1024), "1.0 KiB")
        self.assertEqual(human_size(1536 * 1024), "1.5 MiB")
        self.assertEqual(human_size(2 * 1024 ** 3), "2.0 GiB")
        self.assertEqual(human_size(5000 * 1024 ** 4), "5000.0 TiB")

    def test_rounding_up_moves_to_the_next_unit(self):
        self.assertEqual(human_size(1024 * 1024 - 1), "1.0 MiB")

    def test_negative(self):
        with self.assertRaises(ValueError):
            human_size(-1)
