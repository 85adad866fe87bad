"""Semantic version strings."""


def compare_versions(a, b):
    """-1, 0 or 1 as version `a` is lower than, equal to or higher than `b`.

    Versions are MAJOR.MINOR.PATCH with an optional pre-release after a hyphen
    ("1.2.3-rc.1"). Numbers compare as numbers; a pre-release is lower than the release
    ("1.0.0-rc.1" < "1.0.0"); pre-releases compare their dot-separated parts, numeric parts
    as numbers and lower than text parts, and a shorter list of parts is lower when all
    shared parts are equal ("1.0.0-alpha" < "1.0.0-alpha.1" < "1.0.0-beta"). Raises
    ValueError for anything else.
    """
    raise NotImplementedError
