import unittest

from accounts.errors import ValidationError
from accounts.models import User
from accounts.service import Registry


class ValidationTest(unittest.TestCase):
    def test_error_shape(self):
        error = ValidationError("email", "bad")
        self.assertIsInstance(error, Exception)
        self.assertEqual((error.field, error.message, str(error)), ("email", "bad", "email: bad"))

    def test_valid_user(self):
        User("Ann", "ann@example.com").validate()

    def test_bad_users(self):
        for name, email, field in (("", "a@b.co", "name"), ("  ", "a@b.co", "name"),
                                   ("Ann", "ann.example.com", "email"), ("Ann", "ann@localhost", "email"),
                                   ("Ann", "@b.co", "email"), ("Ann", "a nn@b.co", "email")):
            with self.subTest(email=email), self.assertRaises(ValidationError) as caught:
                User(name, email).validate()
            self.assertEqual(caught.exception.field, field)

    def test_registry_stores_only_valid_users(self):
        registry = Registry()
        registry.register("Ann", "ann@example.com")
        with self.assertRaises(ValidationError):
            registry.register("Bob", "bob")
        self.assertEqual([u.name for u in registry.users], ["Ann"])
