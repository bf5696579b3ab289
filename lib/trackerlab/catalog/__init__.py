"""One catalog of designs: every tracker design under a single stable name.

``CATALOG["triple-heap"]`` is a :class:`~trackerlab.models.design.Design` (the Java it
follows, its release range, its capabilities and options); :func:`size` builds a design for
a :class:`~trackerlab.sizing.request.SizeRequest`. Every command, sweep grid and notebook
types these names; an unknown or old name gets a one-line error with a hint.
"""

from trackerlab.catalog.designs import CATALOG
from trackerlab.catalog.registry import Catalog
from trackerlab.models.design import TRACKERS, Design, PointCounts, Tracker
from trackerlab.sizing.request import SizeRequest, SizeResult


def size(name: str, request: SizeRequest) -> SizeResult:
    """Build design ``name`` for ``request`` from its messages and size it (three columns)."""
    design = CATALOG.get_design(name, CATALOG.names("build"))
    if request.shape is not None and request.shape not in design.shapes:
        from trackerlab.core.params import check_choice

        check_choice(f"shape of {name}", request.shape, design.shapes or ("(none)",))
    return design.build_size(request)


__all__ = [
    "CATALOG",
    "TRACKERS",
    "Catalog",
    "Design",
    "PointCounts",
    "SizeRequest",
    "SizeResult",
    "Tracker",
    "size",
]
