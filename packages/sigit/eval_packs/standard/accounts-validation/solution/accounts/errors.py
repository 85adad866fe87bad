"""Errors the accounts package raises."""


class ValidationError(ValueError):
    """A field of a user is not acceptable."""

    def __init__(self, field, message):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
