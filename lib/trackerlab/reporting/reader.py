"""Text for a reader: no machine paths, no seed file names.

A report read on another machine gains nothing from ``/home/me/trackerlab/data/sweeps/smoke``:
:func:`display_path` shows a path relative to the repository (``data/sweeps/smoke``) or, for
a folder outside it, only its last two parts. :func:`reader_text` applies that to every
absolute path in a text and names seeds by title (:func:`~trackerlab.reporting.seeds.name_seeds`).
"""

from __future__ import annotations

import re

from trackerlab.core.paths import display_path
from trackerlab.reporting.seeds import name_seeds

__all__ = ["display_path", "reader_text"]

#: An absolute POSIX path of at least two parts, not part of a ratio like ``msg/ms``.
ABSOLUTE_PATH = re.compile(r"(?<![\w.~:/])/(?:[\w.+-]+/)+[\w.+-]*")


def reader_text(text: str) -> str:
    """``text`` with absolute paths shown by :func:`display_path` and seeds by title."""
    return name_seeds(ABSOLUTE_PATH.sub(lambda m: display_path(m.group(0)), text))
