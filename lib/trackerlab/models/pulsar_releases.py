"""Pulsar release lines: which catalog design each tracker runs, and the defaults that size it.

The table is data, ``data/pulsar_releases.yaml``: one row per release line (2.10, 2.11, 3.0.x,
3.3.x, 4.0.0, 4.0.1–4.0.5, 4.0.6+, 4.1.x, 4.2.x, master), every fact with its evidence
(``read``, ``inferred``, ``not-established``, ``absent``) and its source (file and PR). This
module only reads it (core layer: it names designs, it never imports the catalog; a test holds
every name to the catalog).

The whole API, for commands and the planner::

    from trackerlab import releases
    rel = releases.resolve("4.0.7")        # -> Release of line "4.0.6+" at patch 4.0.7
    rel.design("delayed")                  # -> "triple-heap"
    rel.choice("delayed").variant          # -> "v2"
    rel.default("delayedDeliveryTickTimeMillis")   # -> 1000
    releases.known_versions()              # -> ("2.10", "2.11", ..., "master")
    releases.resolve(None)                 # -> the newest release (not master)

A version is a line name (``4.1.x``, ``4.0.1–4.0.5``), a minor (``4.1``: its newest patch),
a patch (``4.0.7``) or ``master``. Anything else is a one-line
:class:`~trackerlab.core.errors.UsageError` listing the known versions (exit code 2 from the CLI).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import yaml

from trackerlab.core.errors import UsageError
from trackerlab.core.paths import data_dir

__all__ = [
    "EVIDENCE",
    "TRACKERS",
    "Choice",
    "Fact",
    "Release",
    "known_versions",
    "lines",
    "newest",
    "resolve",
]

FILE = "pulsar_releases.yaml"
MEASURED_FILE = "pulsar_measured.yaml"
#: The parts of a tracker's choice a measured build's classes state.
MEASURED_FORM = ("design", "shape", "variant", "due")
#: How a fact is known (see the YAML's header); ``measured``: read from a released build's
#: own classes (``data/pulsar_measured.yaml``), set by :func:`resolve` where such a record of
#: the line agrees with the table.
EVIDENCE = ("measured", "read", "inferred", "not-established", "absent")
#: Tracker keys of the table -> what they are.
TRACKERS = {
    "nack": "negative-ack tracker (client)",
    "delayed": "delayed-delivery index, default factory (broker)",
    "delayed_bucket": "PIP-195 bucket tracker, opt-in factory (broker)",
    "delayed_topic": "PIP-448 topic-level index, opt-in factory (broker)",
    "pending_acks": "pending acks (broker)",
    "receiver_queue": "receiver queue (Java client)",
}
MASTER = "master"
_PATCH = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+|x))?$", re.ASCII)  # no "４.１"
_OPEN = 10**6  # "every later patch" of an open-ended line


@dataclass(frozen=True)
class Fact:
    """One default: its value (None when absent or not established), evidence and source."""

    value: Any
    evidence: str
    source: str


@dataclass(frozen=True)
class Choice:
    """The structure a tracker runs from patch ``since`` on: a catalog design (or None)."""

    tracker: str
    since: str
    design: str | None
    evidence: str
    source: str
    java: str = ""
    shape: str | None = None
    variant: str | None = None
    missing: str | None = None
    merged: str | None = None
    #: when a time-bucket index hands a bucket out (``InMemoryDelayedDeliveryTracker``): None
    #: or ``key``, its key ``<= now + tick``; ``whole-bucket``, its last ms ``<= now + tick``
    #: (``getBucketCutoffTime``, issue #25996)
    due: str | None = None


@dataclass(frozen=True)
class Release:
    """A release line at one version: the structures and defaults it runs."""

    line: str
    version: str  # the version asked for, normalized ("4.0.7", "4.1.x" for "4.1", "master")
    released: str | None
    choices: dict[str, Choice]
    defaults: dict[str, Fact]

    @property
    def label(self) -> str:
        """``4.0.7 (line 4.0.6+)``, or the line alone when it was asked for."""
        return self.line if self.version == self.line else f"{self.version} (line {self.line})"

    def choice(self, tracker: str) -> Choice:
        if tracker not in self.choices:
            raise UsageError(f"unknown tracker {tracker!r}; choose one of: {', '.join(TRACKERS)}")
        return self.choices[tracker]

    def design(self, tracker: str) -> str | None:
        """The catalog design the tracker runs in this version (None: absent or not modelled)."""
        return self.choice(tracker).design

    def default(self, knob: str) -> Any:
        """The default value of a setting (None when absent or not established)."""
        if knob not in self.defaults:
            raise UsageError(f"unknown setting {knob!r}; choose one of: {', '.join(self.defaults)}")
        return self.defaults[knob].value

    @property
    def roaring_art(self) -> str:
        """The RoaringBitmap ART generation of the release's jar (``JvmLayout.roaring_art``,
        ``sizing.jvm.ROARING_ARTS``): ``"1.6"`` from RoaringBitmap 1.5.3 (also when the version
        is not established), ``"1.2"`` from 0.9.40, ``"0.9.36"`` from 0.9.36, else ``"0.9"``.
        O(1)."""
        version = self.default("roaringbitmap")
        if version is None:
            return "1.6"
        parts = tuple(int(p) for p in str(version).split(".")[:3])
        for first, generation in (((1, 5, 3), "1.6"), ((0, 9, 40), "1.2"), ((0, 9, 36), "0.9.36")):
            if parts >= first:
                return generation
        return "0.9"

    def designs(self) -> dict[str, str | None]:
        """Tracker -> design, for every tracker of the table."""
        return {t: c.design for t, c in self.choices.items()}


# --------------------------------------------------------------------------- loading


@cache
def _table() -> dict[str, Any]:
    with open(data_dir() / FILE, encoding="utf-8") as f:
        return yaml.safe_load(f)


@cache
def _measured() -> dict[str, Any]:
    """Build version -> record of ``data/pulsar_measured.yaml`` (empty without the file)."""
    try:
        with open(data_dir() / MEASURED_FILE, encoding="utf-8") as f:
            return dict((yaml.safe_load(f) or {}).get("builds") or {})
    except FileNotFoundError:
        return {}


def lines() -> list[dict[str, Any]]:
    """The raw rows of the YAML, oldest line first (for tables and tests)."""
    return list(_table()["lines"])


def known_versions() -> tuple[str, ...]:
    """The line names, oldest first; ``master`` last."""
    return tuple(row["line"] for row in _table()["lines"])


def units() -> dict[str, str]:
    """Setting -> unit of its value."""
    return dict(_table()["units"])


def newest() -> Release:
    """The newest release line of the table (master is not a release)."""
    released = [row for row in _table()["lines"] if row["line"] != MASTER]
    return _release(released[-1], released[-1]["line"], None)


def _key(text: str) -> tuple[int, int, int]:
    m = _PATCH.match(text)
    if m is None or m.group(3) in (None, "x"):
        raise ValueError(text)
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def _covers(row: dict[str, Any], version: tuple[int, int, int]) -> bool:
    if row["patches"] is None:
        return False
    first, last = row["patches"]
    lo = _key(first)
    hi = _key(last) if last is not None else (lo[0], lo[1], _OPEN)
    return lo <= version <= hi


def resolve(version: str | None = None) -> Release:
    """The release a user's version string names; None is :func:`newest`."""
    if version is None:
        return newest()
    text = str(version).strip()
    rows = _table()["lines"]
    for row in rows:
        if text == row["line"] or text.replace("-", "–") == row["line"]:
            return _release(row, row["line"], None)
    if text.lower() in (MASTER, "main"):
        return _release(rows[-1], MASTER, None)
    m = _PATCH.match(text)
    if m is not None:
        major, minor = int(m.group(1)), int(m.group(2))
        if m.group(3) in (None, "x"):  # a minor: its newest line and patch
            covering = [r for r in rows if _covers(r, (major, minor, _OPEN - 1))]
            if covering:
                return _release(covering[-1], covering[-1]["line"], None)
        else:
            patch = (major, minor, int(m.group(3)))
            for row in rows:
                if _covers(row, patch):
                    _check_released(row, text, patch)
                    return _release(row, text.lstrip("v"), patch)
    raise UsageError(
        f"unknown --pulsar-version {text!r}; known: {', '.join(known_versions())} "
        "(a patch such as 4.0.7 or a minor such as 4.1 resolves to its line)"
    )


def _check_released(row: dict[str, Any], text: str, patch: tuple[int, int, int]) -> None:
    """UsageError for a patch past the newest release of its line (``newest_patch`` in the
    table, read from apache/pulsar-site's release notes): ``4.2.999`` is no release. O(1)."""
    newest = row.get("newest_patch")
    if newest is not None and patch > _key(newest):
        raise UsageError(
            f"--pulsar-version {text!r}: no such release; the {row['line']} line's newest patch "
            f"is {newest} (give a patch up to it, or the line: {row['line']})"
        )


def _release(row: dict[str, Any], version: str, patch: tuple[int, int, int] | None) -> Release:
    """The row at ``patch`` (None: its newest patch): per tracker the last choice whose
    ``since`` is not after the patch; defaults with the ``defaults_since`` overrides applied;
    facts a measured build of the row agrees with become ``measured``."""
    chosen, raw = _raw_at(row, patch)
    choices = {tracker: _choice(tracker, option) for tracker, option in chosen.items()}
    defaults = {k: Fact(v["value"], v["evidence"], v["source"]) for k, v in raw.items()}
    for build, record in _measured().items():
        if row["patches"] is None or not _covers(row, _key(build)):
            continue
        their_choices, their_defaults = _raw_at(row, _key(build))
        for tracker, form in record.get("trackers", {}).items():
            option = chosen.get(tracker)
            if (
                option is not None
                and their_choices.get(tracker) is option
                and all(
                    form.get(k) == getattr(choices[tracker], k) for k in MEASURED_FORM if k in form
                )
            ):
                choices[tracker] = replace(
                    choices[tracker],
                    evidence="measured",
                    source=f"measured in Pulsar {build}'s classes ({form.get('field', '')}); "
                    f"was {choices[tracker].evidence}: {choices[tracker].source}",
                )
        for knob, fact in record.get("defaults", {}).items():
            mine = defaults.get(knob)
            if (
                mine is not None
                and their_defaults.get(knob) is raw.get(knob)
                and (mine.value == fact["value"])
            ):
                defaults[knob] = Fact(
                    mine.value,
                    "measured" if mine.value is not None else "absent",
                    f"measured: {fact['field']} of {fact['artifact']} "
                    f"(data/{MEASURED_FILE}); was {mine.evidence}: {mine.source}",
                )
        jar = record.get("jars", {}).get("RoaringBitmap")
        mine = defaults.get("roaringbitmap")
        if (
            jar
            and mine is not None
            and mine.value == jar
            and (their_defaults.get("roaringbitmap") is raw.get("roaringbitmap"))
        ):
            defaults["roaringbitmap"] = Fact(
                jar,
                "measured",
                f"measured: the RoaringBitmap jar on Pulsar {build}'s resolved "
                f"class path (data/{MEASURED_FILE}); was {mine.evidence}: {mine.source}",
            )
    return Release(row["line"], version, row["released"], choices, defaults)


def _raw_at(
    row: dict[str, Any], patch: tuple[int, int, int] | None
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """The row's raw YAML choice per tracker and raw default per knob at ``patch``."""
    chosen = {}
    for tracker, options in row["trackers"].items():
        chosen[tracker] = options[0]
        for option in options:
            since = option["since"]
            if patch is None or since == MASTER or _key(since) <= patch:
                chosen[tracker] = option
    raw = dict(row["defaults"])
    for since, overrides in (row.get("defaults_since") or {}).items():
        if patch is None or _key(since) <= patch:
            raw.update(overrides)
    return chosen, raw


def _choice(tracker: str, raw: dict[str, Any]) -> Choice:
    return Choice(
        tracker=tracker,
        since=str(raw["since"]),
        design=raw.get("design"),
        evidence=raw["evidence"],
        source=" ".join(str(raw["source"]).split()),
        java=" ".join(str(raw.get("java", "")).split()),
        shape=raw.get("shape"),
        variant=raw.get("variant"),
        missing=raw.get("missing"),
        merged=raw.get("merged"),
        due=raw.get("due"),
    )
