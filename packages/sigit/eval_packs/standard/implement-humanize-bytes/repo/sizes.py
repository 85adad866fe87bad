"""Sizes for people."""


def human_size(n):
    """A byte count for people, in powers of 1024: "0 B", "1023 B", "1.0 KiB", "1.5 MiB", "2.0 GiB".

    Bytes are whole numbers; larger units have one decimal (rounded half to even, as
    format does), and the unit goes up when the number reaches 1024 ("1024.0 KiB" is never
    printed: that is "1.0 MiB"). Units go up to TiB. Negative sizes raise ValueError.
    """
    raise NotImplementedError
