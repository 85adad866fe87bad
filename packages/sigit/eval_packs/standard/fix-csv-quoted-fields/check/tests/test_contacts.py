import os
import tempfile
import unittest

from contacts import read_contacts


class ContactsTest(unittest.TestCase):
    def read(self, text):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "c.csv")
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(text)
            return read_contacts(path)

    def test_plain_rows(self):
        self.assertEqual(self.read("name,email\nBob,b@x.org\n"), [{"name": "Bob", "email": "b@x.org"}])

    def test_quoted_commas(self):
        rows = self.read('name,email,city\n"Smith, Ann",ann@example.com,Leeds\nBob,bob@example.com,"York, UK"\n')
        self.assertEqual(rows[0]["name"], "Smith, Ann")
        self.assertEqual(rows[1]["city"], "York, UK")
        self.assertEqual(len(rows), 2)

    def test_sample_file(self):
        self.assertEqual(read_contacts("sample.csv")[0]["email"], "ann@example.com")
