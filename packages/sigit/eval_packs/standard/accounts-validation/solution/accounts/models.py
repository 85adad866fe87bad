"""Users."""

from dataclasses import dataclass

from accounts.errors import ValidationError


@dataclass
class User:
    name: str
    email: str

    def validate(self):
        """Raise ValidationError naming the field when a field is not acceptable."""
        if not self.name.strip():
            raise ValidationError("name", "must not be blank")
        local, at, domain = self.email.partition("@")
        if not local or not at or "." not in domain or " " in self.email:
            raise ValidationError("email", f"not an email address: {self.email!r}")
