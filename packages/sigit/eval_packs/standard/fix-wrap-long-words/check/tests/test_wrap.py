import unittest

from wrap import wrap


class WrapTest(unittest.TestCase):
    def test_words(self):
        self.assertEqual(wrap("the quick brown fox", 10), ["the quick", "brown fox"])

    def test_long_word_is_split(self):
        self.assertEqual(wrap("a abcdefghijkl b", 5), ["a", "abcde", "fghij", "kl b"])

    def test_no_line_is_too_long(self):
        text = "supercalifragilistic is a word " * 3
        for width in (3, 7, 12):
            self.assertTrue(all(len(line) <= width for line in wrap(text, width)))
            self.assertEqual("".join(wrap(text, width)).replace(" ", ""), text.replace(" ", ""))
