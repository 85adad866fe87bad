import unittest

from crm.billing import bill_all
from crm.models import UserRecord
from crm.store import UserRecordStore


class BillingTest(unittest.TestCase):
    def test_bill_known_accounts(self):
        store = UserRecordStore()
        store.add(UserRecord("a@x.org"))
        charged = bill_all(store, ["a@x.org", "nobody@x.org"], 500)
        self.assertEqual([r.email for r in charged], ["a@x.org"])
        self.assertEqual(store.find("a@x.org").balance_cents, 500)
