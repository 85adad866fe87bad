import pathlib
import unittest

import crm.models
import crm.store


class OldNameGoneTest(unittest.TestCase):
    def test_no_file_mentions_the_old_name(self):
        for path in [*pathlib.Path("crm").rglob("*.py"), pathlib.Path("README.md")]:
            self.assertNotIn("UserRecord", path.read_text(), path)

    def test_no_alias(self):
        self.assertFalse(hasattr(crm.models, "UserRecord"))
        self.assertFalse(hasattr(crm.store, "UserRecordStore"))
