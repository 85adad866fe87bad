import unittest

from rle import decode, encode


class RLETest(unittest.TestCase):
    def test_encode(self):
        self.assertEqual(encode("aaabcc"), "3a1b2c")
        self.assertEqual(encode(""), "")
        self.assertEqual(encode("x" * 12), "12x")

    def test_decode(self):
        self.assertEqual(decode("3a1b2c"), "aaabcc")
        self.assertEqual(decode("12x1 "), "x" * 12 + " ")
        self.assertEqual(decode(""), "")

    def test_round_trip(self):
        for text in ("hello  world", "zzzzzzzzzzzzzzzzz!", "ab"):
            self.assertEqual(decode(encode(text)), text)

    def test_bad_input(self):
        for call, arg in ((encode, "a1"), (decode, "a"), (decode, "3a2")):
            with self.subTest(arg=arg), self.assertRaises(ValueError):
                call(arg)
