"""Monthly billing."""

from crm.models import UserRecord
from crm.store import UserRecordStore


def bill_all(store: UserRecordStore, emails, cents):
    """Charge each known email; returns the UserRecords charged."""
    charged: list[UserRecord] = []
    for email in emails:
        record = store.find(email)
        if record is not None:
            record.charge(cents)
            charged.append(record)
    return charged
