"""The HTTP client (the transport is injected so tests need no network)."""


class Client:
    def __init__(self, settings, transport):
        self.settings = settings
        self.transport = transport

    def get(self, path):
        url = self.settings.base_url + path
        last = None
        for _ in range(self.settings.retries):
            try:
                return self.transport(url)
            except ConnectionError as error:
                last = error
        raise last
