import unittest

from textkit import slugify


class SlugifyTest(unittest.TestCase):
    def test_docstring_examples(self):
        self.assertEqual(slugify("Hello, World!"), "hello-world")
        self.assertEqual(slugify("  Python 3.12 -- what's new  "), "python-3-12-what-s-new")

    def test_already_a_slug(self):
        self.assertEqual(slugify("abc-123"), "abc-123")

    def test_only_symbols(self):
        self.assertEqual(slugify("!!!"), "")

    def test_non_ascii_is_a_separator(self):
        self.assertEqual(slugify("café au lait"), "caf-au-lait")
