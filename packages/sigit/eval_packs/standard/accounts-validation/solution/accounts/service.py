"""Sign-ups."""

from accounts.models import User


class Registry:
    def __init__(self):
        self.users = []

    def register(self, name, email):
        user = User(name, email)
        user.validate()
        self.users.append(user)
        return user
