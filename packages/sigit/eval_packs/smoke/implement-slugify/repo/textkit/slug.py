"""URL slugs."""


def slugify(title: str) -> str:
    """Turn a title into a URL slug.

    Lowercase; every run of characters that are not ASCII letters or digits becomes one
    hyphen; no hyphen at the start or the end.

    >>> slugify("Hello, World!")
    'hello-world'
    >>> slugify("  Python 3.12 -- what's new  ")
    'python-3-12-what-s-new'
    """
    raise NotImplementedError
