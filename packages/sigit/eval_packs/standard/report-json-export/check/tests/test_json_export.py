import json
import subprocess
import sys
import unittest

from report.data import ROWS
from report.exporters import EXPORTERS


class JsonExportTest(unittest.TestCase):
    def test_registered(self):
        from report.exporters.json_exporter import export_json

        self.assertIs(EXPORTERS["json"], export_json)
        self.assertEqual(set(EXPORTERS), {"csv", "text", "json"})

    def test_output(self):
        text = EXPORTERS["json"](ROWS)
        self.assertEqual(json.loads(text), ROWS)
        self.assertEqual(text, json.dumps(ROWS, indent=2))

    def test_command_line(self):
        out = subprocess.run([sys.executable, "-m", "report", "--format", "json"], capture_output=True,
                             text=True, check=True).stdout
        self.assertEqual(json.loads(out)[1]["region"], "south")
