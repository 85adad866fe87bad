import json


def enabled(name, environment, path="config/flags.json"):
    with open(path, encoding="utf-8") as f:
        return json.load(f)["flags"][name]["environments"][environment]
