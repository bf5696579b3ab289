"""The design registry: names to designs, with lookup errors that say what to type instead.

Modelled on papermill's ``engines.py``: a small registry class, and the built-in entries
registered explicitly, in one table (:mod:`trackerlab.catalog.designs`).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping

from trackerlab.core.errors import UsageError
from trackerlab.models.design import Design, Tracker


class Catalog(Mapping[str, Design]):
    """Designs by their one stable name; iteration follows registration order."""

    def __init__(self) -> None:
        self._designs: dict[str, Design] = {}
        self._renamed: dict[str, str] = {}

    def register(self, name: str, design: Design) -> None:
        """Add ``design`` under ``name``; a name is registered once."""
        if name in self._designs:
            raise ValueError(f"design {name!r} registered twice")
        self._designs[name] = design

    def renamed(self, old: str, new: str) -> None:
        """Remember that ``old`` (a name earlier versions used) is now ``new``, for hints."""
        self._renamed[old] = new

    def __getitem__(self, name: str) -> Design:
        return self._designs[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._designs)

    def __len__(self) -> int:
        return len(self._designs)

    def get_design(self, name: object, among: tuple[str, ...] | None = None) -> Design:
        """The design called ``name`` (``among``: the names this use accepts), or a one-line
        UsageError: ``unknown design 'heap'; did you mean 'triple-heap'?``."""
        return self[self.check(name, among)]

    def check(self, name: object, among: tuple[str, ...] | None = None) -> str:
        """``name`` if it is a design (among ``among``), else a UsageError with a hint."""
        names = tuple(self._designs) if among is None else among
        if isinstance(name, str) and name in names:
            return name
        text = str(name)
        listed = ", ".join(names)
        if text in self._designs:
            raise UsageError(f"design {text!r} cannot be used here; choose one of: {listed}")
        hint = self._renamed.get(text)
        if hint not in names:
            close = difflib.get_close_matches(text, names, n=1, cutoff=0.6)
            hint = close[0] if close else None
        if hint is not None:
            raise UsageError(f"unknown design {text!r}; did you mean {hint!r}?")
        raise UsageError(f"unknown design {text!r}; choose one of: {listed}")

    def names(
        self, capability: str | None = None, tracker: Tracker | None = None
    ) -> tuple[str, ...]:
        """Names of the designs with a capability (``build``, ``from_counts``, ``simulate``,
        ``discrete_events``) and of a tracker, in registration order."""
        return tuple(
            name
            for name, d in self._designs.items()
            if (capability is None or getattr(d, capability) is not None)
            and (tracker is None or d.tracker == tracker)
        )
