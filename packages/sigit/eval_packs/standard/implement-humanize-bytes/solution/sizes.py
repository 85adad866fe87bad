"""Sizes for people."""


def human_size(n):
    """A byte count for people, in powers of 1024: "0 B", "1023 B", "1.0 KiB", "1.5 MiB", "2.0 GiB".

    Bytes are whole numbers; larger units have one decimal (rounded half to even, as
    format does), and the unit goes up when the number reaches 1024 ("1024.0 KiB" is never
    printed: that is "1.0 MiB"). Units go up to TiB. Negative sizes raise ValueError.
    """
    if n < 0:
        raise ValueError("negative size")
    if n < 1024:
        return f"{n} B"
    value = float(n)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if float(f"{value:.1f}") < 1024 or unit == "TiB":
            return f"{value:.1f} {unit}"
    raise AssertionError("unreachable")
