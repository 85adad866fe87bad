import unittest

from pipeline import validators

SAMPLES = [(1, 'ab', True), (1, 'abcdefghijklmnop', False), (1, 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', False), (219, 'ab', False), (219, 'abcdefghijklmnop', True), (219, 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', False), (220, 'ab', True), (220, 'abcdefghijklmnop', True), (220, 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', True), (221, 'ab', True), (221, 'abcdefghijklmnop', False), (221, 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', False), (440, 'ab', True), (440, 'abcdefghijklmnop', True), (440, 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', False)]


class IbanTest(unittest.TestCase):
    def test_valid(self):
        for iban in ("GB82 WEST 1234 5698 7654 32", "DE89370400440532013000", "fr1420041010050500013m02606"):
            self.assertTrue(validators.validate_iban(iban), iban)

    def test_invalid(self):
        for iban in ("GB82 WEST 1234 5698 7654 33", "DE89370400440532013001", "GB", 42, "GB82-WEST"):
            self.assertFalse(validators.validate_iban(iban), iban)

    def test_the_rest_is_untouched(self):
        names = [n for n in dir(validators) if n.startswith("validate_field_")]
        self.assertEqual(len(names), 440)
        for i, value, ok in SAMPLES:
            self.assertEqual(getattr(validators, f"validate_field_{i:04d}")(value), ok, (i, value))
