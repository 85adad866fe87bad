"""In-memory storage of UserRecord objects by email."""

from crm.models import UserRecord


class UserRecordStore:
    def __init__(self):
        self._by_email: dict[str, UserRecord] = {}

    def add(self, record: UserRecord) -> None:
        self._by_email[record.email] = record

    def find(self, email: str) -> UserRecord | None:
        return self._by_email.get(email)
