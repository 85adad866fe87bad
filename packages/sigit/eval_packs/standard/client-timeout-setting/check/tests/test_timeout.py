import unittest

from apiclient.client import Client
from apiclient.settings import Settings, load_settings


class TimeoutTest(unittest.TestCase):
    def test_default_and_environment(self):
        self.assertEqual(load_settings({}).timeout_s, 10.0)
        self.assertEqual(load_settings({"APP_TIMEOUT": "2.5"}).timeout_s, 2.5)
        self.assertEqual(load_settings({"APP_RETRIES": "5"}).retries, 5)

    def test_passed_to_every_attempt(self):
        calls = []

        def transport(url, timeout=None):
            calls.append((url, timeout))
            if len(calls) < 2:
                raise ConnectionError("reset")
            return "ok"

        client = Client(Settings(base_url="http://h", timeout_s=1.5), transport)
        self.assertEqual(client.get("/x"), "ok")
        self.assertEqual(calls, [("http://h/x", 1.5), ("http://h/x", 1.5)])
