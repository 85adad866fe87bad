import json
import sys

try:
    data = json.load(open("config/flags.json", encoding="utf-8"))
except ValueError as error:
    sys.exit(f"config/flags.json is not valid JSON: {error}")
expected = {
    "new_checkout": {"description": "The one-page checkout",
                     "environments": {"dev": True, "beta": True, "prod": False}},
    "dark_mode": {"description": "Dark theme toggle in settings",
                  "environments": {"dev": True, "beta": True, "prod": True}},
    "saved_carts": {"description": "Keep carts between sessions",
                    "environments": {"dev": True, "beta": False, "prod": False}},
}
if data != {"flags": expected}:
    sys.exit(f"flags are {json.dumps(data, indent=1)}")
