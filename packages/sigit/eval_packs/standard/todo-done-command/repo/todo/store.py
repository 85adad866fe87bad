"""Todo items kept in a JSON file."""

import json
import os


class TodoStore:
    def __init__(self, path):
        self.path = path

    def load(self):
        if not os.path.exists(self.path):
            return []
        with open(self.path, encoding="utf-8") as f:
            return json.load(f)

    def save(self, items):
        with open(self.path, "w", encoding="utf-8") as f:
            json.dump(items, f, indent=2)

    def add(self, text):
        items = self.load()
        item = {"id": max((i["id"] for i in items), default=0) + 1, "text": text, "done": False}
        items.append(item)
        self.save(items)
        return item
