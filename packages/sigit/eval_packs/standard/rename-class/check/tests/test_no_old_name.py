import pathlib
import unittest

import crm.models
import crm.store


def project_files():
    """Every file of the project but this test: "everywhere" means every file, not the package alone."""
    me = pathlib.Path(__file__).resolve()
    for path in sorted(pathlib.Path(".").rglob("*")):
        skip = {".git", "__pycache__", "node_modules"} & set(path.parts)
        if path.is_file() and not skip and path.resolve() != me:
            yield path


class OldNameGoneTest(unittest.TestCase):
    def test_no_file_mentions_the_old_name(self):
        for path in project_files():
            self.assertNotIn(b"UserRecord", path.read_bytes(), path)

    def test_no_alias(self):
        self.assertFalse(hasattr(crm.models, "UserRecord"))
        self.assertFalse(hasattr(crm.store, "UserRecordStore"))
