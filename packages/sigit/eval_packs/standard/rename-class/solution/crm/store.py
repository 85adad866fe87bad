"""In-memory storage of Account objects by email."""

from crm.models import Account


class AccountStore:
    def __init__(self):
        self._by_email: dict[str, Account] = {}

    def add(self, record: Account) -> None:
        self._by_email[record.email] = record

    def find(self, email: str) -> Account | None:
        return self._by_email.get(email)
