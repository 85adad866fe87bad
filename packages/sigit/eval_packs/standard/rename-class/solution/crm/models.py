"""Domain models."""

from dataclasses import dataclass


@dataclass
class Account:
    """A customer account: who pays, and how much they owe."""

    email: str
    balance_cents: int = 0

    def charge(self, cents):
        self.balance_cents += cents
