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
    return (_key(a) > _key(b)) - (_key(a) < _key(b))


def _key(version):
    core, _, pre = version.partition("-")
    numbers = core.split(".")
    if len(numbers) != 3 or not all(n.isdigit() for n in numbers) or (_ and not pre):
        raise ValueError(f"not a version: {version!r}")
    parts = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split(".")) if pre else ()
    return tuple(int(n) for n in numbers), (0, parts) if pre else (1, ())
