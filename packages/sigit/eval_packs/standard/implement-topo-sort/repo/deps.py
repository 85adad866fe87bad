"""Build order for the monorepo's packages."""


class CycleError(ValueError):
    """The dependencies loop back on themselves."""


def build_order(deps):
    """Package names in an order where every package comes after all its dependencies.

    `deps` maps a package to the packages it depends on; a dependency that is not a key is a
    package with no dependencies of its own. Among packages that are ready at the same time,
    the alphabetically first comes first, so the order is deterministic. Raises CycleError
    (naming a package on the cycle) when there is no such order.
    """
    raise NotImplementedError
