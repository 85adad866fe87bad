"""Monthly billing."""

from crm.models import Account
from crm.store import AccountStore


def bill_all(store: AccountStore, emails, cents):
    """Charge each known email; returns the Accounts charged."""
    charged: list[Account] = []
    for email in emails:
        record = store.find(email)
        if record is not None:
            record.charge(cents)
            charged.append(record)
    return charged
