"""Sweep grids: read from YAML (a file or a named profile), validate, expand to points.

A grid file::

    description: rate x trim bits, fixed and random delays
    root_seed: 393
    designs: [time-buckets, time-buckets-runs, triple-heap]   # sized on every point
    messages: 1_000_000                                        # top-level axes: defaults
    blocks:                                                    # each block: a product
      - name: heatmap
        rate_per_ms: [1, 4, 16]
        trim_bits: [6, 8, 10]
        delay: ["fixed:60s", "uniform:0:60s"]
      - name: scaling
        messages: ["1e6", "1e7"]
        rate_per_ms: 8
        tick_ms: 1s

Every axis takes one value or a list; a block is the Cartesian product of its axes (top-level
axes are defaults for every block; without ``blocks`` the top level is the only block). A
block with ``alone: true`` runs each of its points in a Spark job of its own (timings).
Workload axes (:data:`WORKLOAD_AXES`): ``messages`` (counts accept ``1e8``), ``rate_per_ms``
or ``rate_per_s``, ``trim_bits`` (the nack tracker's bucket) or ``tick_ms`` (the delayed
tracker: bits = floor(log2 tick), messages due within a tick are not tracked),
``entries_per_ledger``, ``batch_size``, ``delay`` and ``pattern`` (specs of
:mod:`trackerlab.workloads.stream`), ``replicates``. Sizing axes, applied to each point without a
new workload: ``designs`` (:data:`DESIGNS`) and ``shapes`` (JVM declarations of the
time-bucket map). ``settings`` tunes the engine (:data:`SETTINGS`).

A point that several blocks produce is computed once; its ``block`` column lists them
("heatmap,scaling").

Seeds: each point's ``point_id`` is a stable hash of its workload parameters (so adding a
value to an axis does not reseed the other points, and a resumed sweep finds them again);
its workload seed is ``SeedSequence([root_seed, point_id]).generate_state(1)[0]``, never a
Spark partition index. Every design and shape of a point sizes the same message stream.

Bad input raises :class:`~trackerlab.core.errors.UsageError` naming the file, the line (from
the YAML marks) and the key.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from trackerlab.catalog import CATALOG
from trackerlab.core import safe_yaml
from trackerlab.core.errors import UsageError
from trackerlab.core.params import check_choice, check_float, check_int
from trackerlab.core.safe_yaml import BoundedLoader
from trackerlab.models.delayed.time_bucket_runs import BucketRun
from trackerlab.models.design import DELAYED, NACK
from trackerlab.models.nack.pair_map_counts import MAX_ENTRIES as MAX_PAIR_MAP_ENTRIES
from trackerlab.models.time_buckets.shapes import SHAPES
from trackerlab.workloads.delay_spec import DelaySpec
from trackerlab.workloads.stream import PatternSpec, Workload
from trackerlab.workloads.units import parse_duration_ms

#: Catalog designs a sweep sizes from counts (a reducer pass, no index built).
DESIGNS = CATALOG.names("from_counts")
#: Sized when a block names no designs: the nack tracker's on trim-bits points, the delayed
#: tracker's on tick points, and the heap on both. ``nack-pair-map`` (the nack tracker before
#: PIP-393) is opt-in: it needs at most pair_map_counts.MAX_ENTRIES messages.
DEFAULT_DESIGNS = {
    "trim_bits": ("nack-time-buckets", "nack-time-buckets-runs", "triple-heap"),
    "tick_ms": ("time-buckets", "time-buckets-runs", "triple-heap"),
}
ENGINES = ("python", "sql")
WORKLOAD_AXES = (
    "messages",
    "rate_per_ms",
    "rate_per_s",
    "trim_bits",
    "tick_ms",
    "entries_per_ledger",
    "batch_size",
    "delay",
    "pattern",
    "replicates",
)
SIZING_AXES = ("designs", "shapes")
AXES = WORKLOAD_AXES + SIZING_AXES
#: Engine settings and their defaults (see :mod:`trackerlab.spark.sweep_engine`).
SETTINGS: dict[str, Any] = {
    "engine": "python",
    "task_messages": 0,  # 0: one task per core, at most 2^26 messages each
    "piece_messages": 1 << 21,  # measured: 2^21 beats 2^20 and 2^22 (first-touch page faults)
    "wave_messages": 50_000_000,
}
TOP_KEYS = ("description", "root_seed", "settings", "blocks")
PROFILE_FILE = "profiles.yaml"
MAX_MESSAGES = 10**11
MAX_ENTRIES_PER_LEDGER = 1 << 24  # entry ids below 2^24: bitmaps of at most 256 chunks
MAX_TRIM_BITS = 40
_DEFAULTS = {
    "entries_per_ledger": 50_000,
    "batch_size": 1,
    "delay": "fixed:0",
    "pattern": "all",
    "replicates": 1,
    "shapes": ["avl-openhash"],
}


# --------------------------------------------------------------------------- YAML with lines


class _LineLoader(BoundedLoader):
    """The bounded loader (:mod:`trackerlab.core.safe_yaml`: aliases, nesting and expanded size
    capped) whose mappings remember the line of each key (``LineDict.lines``)."""


class LineDict(dict):
    lines: dict[str, int]


class LineList(list):
    line: int


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> LineDict:
    out = LineDict()
    out.lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if isinstance(key, (dict, list)):
            raise UsageError(f"{loader.name}:{key_node.start_mark.line + 1}: keys must be text")
        if key in out:
            raise UsageError(f"{loader.name}:{key_node.start_mark.line + 1}: duplicate key {key!r}")
        out[key] = loader.construct_object(value_node, deep=True)
        out.lines[str(key)] = key_node.start_mark.line + 1
    return out


def _construct_sequence(loader: _LineLoader, node: yaml.SequenceNode) -> LineList:
    out = LineList(loader.construct_object(child, deep=True) for child in node.value)
    out.line = node.start_mark.line + 1
    return out


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


def load_yaml(text: str, name: str) -> Any:
    """Parse YAML keeping key lines; UsageError ``name:line: ...`` on a syntax error or a
    document beyond the loader's bounds (:mod:`trackerlab.core.safe_yaml`)."""
    return safe_yaml.load(text, name, _LineLoader)


# --------------------------------------------------------------------------- points


@dataclass(frozen=True)
class GridPoint:
    """One workload of the grid, its precision, and the designs and shapes sized on it.

    ``trim_bits`` is the nack tracker's precision on a trim-bits point; on a tick point it is
    the delayed tracker's ``floor(log2 tick_ms)``.
    """

    grid_row: int
    block: str
    workload: Workload
    trim_bits: int
    tick_ms: int | None
    replicate: int
    point_id: int
    designs: tuple[str, ...]
    shapes: tuple[str, ...] = ("avl-openhash",)
    #: computed in a Spark job of its own, so its wall time is its own (scaling blocks)
    alone: bool = False

    @property
    def seed(self) -> int:
        return self.workload.seed

    def bucket_run(self) -> BucketRun:
        """The single-process experiment of this point (plain index, default JVM shape)."""
        return BucketRun(self.workload, self.trim_bits, tick_ms=self.tick_ms)

    @property
    def key(self) -> str:
        """Identity of the point's result file: workload, seed, designs and shapes."""
        payload = json.dumps(
            [workload_identity(self), self.seed, list(self.designs), list(self.shapes)]
        )
        return hashlib.sha256(payload.encode()).hexdigest()[:20]

    def label(self) -> str:
        w = self.workload
        when = f"tick {self.tick_ms} ms" if self.tick_ms is not None else f"{self.trim_bits} bits"
        return (
            f"{w.messages:,} msgs, {w.rate_per_ms:g}/ms, {when}, batch {w.batch_size}, "
            f"{w.entries_per_ledger} per ledger, delay {w.delay.text}, {w.pattern.text}"
        )

    def columns(self) -> dict[str, Any]:
        """The point as the flat columns of a result row or a grid table."""
        w = self.workload
        return {
            "grid_row": self.grid_row,
            "block": self.block,
            "point_id": self.point_id,
            "seed": self.seed,
            "replicate": self.replicate,
            "messages": w.messages,
            "rate_per_ms": w.rate_per_ms,
            "trim_bits": self.trim_bits,
            "tick_ms": self.tick_ms,
            "entries_per_ledger": w.entries_per_ledger,
            "batch_size": w.batch_size,
            "delay": w.delay.text,
            "delay_inputs": w.delay.input_digest,
            "pattern": w.pattern.text,
        }


def workload_identity(point: GridPoint | Mapping[str, Any]) -> dict[str, Any]:
    """The parameters that define a point's message stream (what ``point_id`` hashes),
    with the content hash of the files its delay reads (``empirical:FILE``): an edited file
    makes another point, never a stale resume."""
    d = point.columns() if isinstance(point, GridPoint) else dict(point)
    keys = [k for k in WORKLOAD_AXES if k not in ("rate_per_s", "replicates")] + ["replicate"]
    identity = {k: d[k] for k in keys}
    if d.get("delay_inputs"):  # absent otherwise: keys of file-free grids do not change
        identity["delay_inputs"] = d["delay_inputs"]
    return identity


def point_seed(root_seed: int, point_id: int) -> int:
    """``SeedSequence([root_seed, point_id])``'s first 32-bit word."""
    return int(np.random.SeedSequence([root_seed, point_id]).generate_state(1)[0])


@dataclass(frozen=True)
class Grid:
    name: str
    source: str
    description: str
    root_seed: int
    points: tuple[GridPoint, ...]
    settings: dict[str, Any] = field(default_factory=lambda: dict(SETTINGS))

    @property
    def messages(self) -> int:
        return sum(p.workload.messages for p in self.points)

    def to_pandas(self):  # -> pandas.DataFrame
        """One row per point, with its seed (the grid as a table)."""
        import pandas as pd

        rows = []
        for p in self.points:
            row = p.columns()
            row["designs"] = ",".join(p.designs)
            row["shapes"] = ",".join(p.shapes)
            row["alone"] = p.alone
            rows.append(row)
        return pd.DataFrame(rows)


# --------------------------------------------------------------------------- validation


class _Where:
    """Formats ``file:line: key``-prefixed messages."""

    def __init__(self, name: str) -> None:
        self.name = name

    def at(self, mapping: Mapping, key: str) -> str:
        line = getattr(mapping, "lines", {}).get(key)
        return f"{self.name}:{line}" if line else self.name

    def error(self, mapping: Mapping, key: str, message: str) -> UsageError:
        return UsageError(f"{self.at(mapping, key)}: {key}: {message}")


def parse_count(name: str, value: object) -> int:
    """An integer count; accepts ``1e8`` and ``864_000_000`` (YAML 1.1 reads both as text)."""
    if isinstance(value, str):
        text = value.strip().replace("_", "")
        try:
            number = float(text)
        except ValueError:
            raise UsageError(f"must be an integer, got {value!r}") from None
        if not (math.isfinite(number) and number.is_integer()):
            raise UsageError(f"must be an integer, got {value!r}")
        value = int(number)
    return check_int(name, value)


def _tick(value: object) -> int:
    if isinstance(value, str):
        value = parse_duration_ms(value, "tick_ms")
    tick = parse_count("tick_ms", value)
    return check_int("tick_ms", tick, 1, 1 << MAX_TRIM_BITS)


def _check_axis(key: str, value: object, base: Path | None) -> object:
    """One axis value, canonical; UsageError (without location) if out of range."""
    if key == "messages":
        return check_int("messages", parse_count("messages", value), 1, MAX_MESSAGES)
    if key in ("rate_per_ms", "rate_per_s"):
        return check_float(key, value, 0, 1e6, lo_open=True)
    if key == "trim_bits":
        return check_int("trim_bits", value, 0, MAX_TRIM_BITS)
    if key == "tick_ms":
        return _tick(value)
    if key == "entries_per_ledger":
        return check_int(key, parse_count(key, value), 1, MAX_ENTRIES_PER_LEDGER)
    if key == "batch_size":
        return check_int(key, parse_count(key, value), 1, 100_000)
    if key == "replicates":
        return check_int(key, value, 1, 1000)
    if key == "delay":
        text = str(value).strip()
        kind, _, rest = text.partition(":")
        if kind == "empirical" and rest and "@" not in rest and base is not None:
            path = Path(rest)
            text = f"empirical:{path if path.is_absolute() else (base / path).resolve()}"
        DelaySpec.parse(text)
        return text
    if key == "pattern":
        text = str(value).strip()
        PatternSpec.parse(text)
        return text
    if key == "designs":
        return CATALOG.check(value, DESIGNS)
    if key == "shapes":
        return check_choice("JVM shape", value, SHAPES)
    raise AssertionError(key)


def _values(where: _Where, mapping: Mapping, key: str, base: Path | None) -> list[object]:
    raw = mapping[key]
    items = list(raw) if isinstance(raw, list) else [raw]
    if not items:
        raise where.error(mapping, key, "needs at least one value")
    out = []
    for item in items:
        if isinstance(item, (dict, list)):
            raise where.error(mapping, key, f"values must be scalars, got {item!r}")
        try:
            out.append(_check_axis(key, item, base))
        except UsageError as exc:
            raise where.error(mapping, key, str(exc)) from None
    return out


def _axes(where: _Where, mapping: Mapping, base: Path | None, allowed: tuple[str, ...]) -> dict:
    out = {}
    for key in mapping:
        if key in allowed:
            continue
        if key not in AXES:
            known = ", ".join((*AXES, *TOP_KEYS))
            raise where.error(mapping, str(key), f"unknown key; known keys: {known}")
        out[key] = _values(where, mapping, key, base)
    return out


def _settings(where: _Where, mapping: Mapping) -> dict[str, Any]:
    settings = dict(SETTINGS)
    raw = mapping.get("settings") or {}
    if not isinstance(raw, dict):
        raise where.error(mapping, "settings", "must be a mapping")
    for key, value in raw.items():
        try:
            if key == "engine":
                settings[key] = check_choice("engine", value, ENGINES)
            elif key == "task_messages":
                settings[key] = check_int(key, parse_count(key, value), 0, 1 << 30)
            elif key in ("piece_messages", "wave_messages"):
                settings[key] = check_int(key, parse_count(key, value), 1 << 12, MAX_MESSAGES)
            else:
                raise UsageError(f"unknown setting; known: {', '.join(SETTINGS)}")
        except UsageError as exc:
            raise where.error(raw, str(key), str(exc)) from None
    return settings


#: Points a grid may expand to: listing them is per-point Python work (a 20 x 20 x 10 x 10 x 10
#: grid with 1,000 replicates would be 4e8), and a sweep writes one file per point.
MAX_POINTS = 100_000


def _expand_block(
    where: _Where, block: Mapping, axes: dict[str, list], name: str
) -> Iterator[dict[str, Any]]:
    if "rate_per_ms" in axes and "rate_per_s" in axes:
        raise where.error(block, "rate_per_s", "give rate_per_ms or rate_per_s, not both")
    if "trim_bits" in axes and "tick_ms" in axes:
        raise where.error(block, "tick_ms", "give trim_bits or tick_ms, not both")
    for alternatives in (
        ("messages",),
        ("rate_per_ms", "rate_per_s"),
        ("trim_bits", "tick_ms"),
    ):
        if not any(a in axes for a in alternatives):
            raise UsageError(f"{where.name}: block {name!r} needs {' or '.join(alternatives)}")
    keys = [k for k in WORKLOAD_AXES if k in axes]
    count = math.prod(len(axes[k]) for k in keys if k != "replicates")
    count *= sum(axes["replicates"]) if "replicates" in axes else 1
    if count > MAX_POINTS:
        raise UsageError(
            f"{where.name}: block {name!r} expands to {count:,} points; a grid holds at most "
            f"{MAX_POINTS:,} (fewer axis values or replicates)"
        )
    for combo in itertools.product(*(axes[k] for k in keys)):
        point = dict(zip(keys, combo, strict=True))
        if "rate_per_s" in point:
            point["rate_per_ms"] = point.pop("rate_per_s") / 1000.0
        tick = point.get("tick_ms")
        point["tick_ms"] = tick
        point["trim_bits"] = max(tick.bit_length() - 1, 0) if tick else point["trim_bits"]
        for replicate in range(point.pop("replicates")):
            yield {**point, "replicate": replicate}


def _check_designs(
    where: _Where, mapping: Mapping, designs: tuple[str, ...], point: Mapping[str, Any]
) -> None:
    """A nack design sizes trim-bits points, a delayed design tick points (the heap both:
    on a trim-bits point it holds every entry). ``nack-pair-map``'s one-section table cannot
    grow past :data:`~trackerlab.models.nack.pair_map_counts.MAX_ENTRIES` keys in Java."""
    kind = "tick_ms" if point["tick_ms"] is not None else "trim_bits"
    for name in designs:
        tracker = CATALOG[name].tracker
        if kind == "tick_ms" and tracker == NACK:
            raise where.error(
                mapping,
                "designs",
                f"{name} is the nack tracker's design: use trim_bits, not tick_ms",
            )
        if kind == "trim_bits" and tracker == DELAYED and name != "triple-heap":
            raise where.error(
                mapping,
                "designs",
                f"{name} is the delayed tracker's design: use tick_ms, not trim_bits",
            )
    entries = -(-point["messages"] // point["batch_size"])
    if "nack-pair-map" in designs and entries > MAX_PAIR_MAP_ENTRIES:
        raise where.error(
            mapping,
            "designs",
            f"nack-pair-map holds at most {MAX_PAIR_MAP_ENTRIES:,} entries (one section's "
            f"long[4 * capacity] must fit a Java array), got a point of {entries:,} entries",
        )


class _DelayCache(dict):
    """Delay text -> parsed spec, parsed on first use."""

    def __missing__(self, text: str) -> DelaySpec:
        spec = self[text] = DelaySpec.parse(text)
        return spec


def _root_seed(where: _Where, raw: dict[str, Any]) -> int:
    """The grid's ``root_seed`` (default 0), checked in 0..2^63 - 1."""
    try:
        return check_int("root_seed", raw.get("root_seed", 0), 0, (1 << 63) - 1)
    except UsageError as exc:
        raise where.error(raw, "root_seed", str(exc)) from None


def _blocks(where: _Where, raw: dict[str, Any]) -> list[Any]:
    """The grid's ``blocks`` (none: one empty block), a non-empty list."""
    blocks = raw.get("blocks")
    if blocks is None:
        return [LineDict()]
    if not isinstance(blocks, list) or not blocks:
        raise where.error(raw, "blocks", "must be a non-empty list of mappings")
    return blocks


def _merged(
    first: GridPoint,
    block_name: str,
    designs: tuple[str, ...],
    shapes: tuple[str, ...],
    alone: bool,
) -> GridPoint:
    """``first`` also serving block ``block_name``: its designs and shapes added."""
    return dataclasses.replace(
        first,
        block=f"{first.block},{block_name}",
        designs=tuple(dict.fromkeys(first.designs + designs)),
        shapes=tuple(dict.fromkeys(first.shapes + shapes)),
        alone=first.alone or alone,
    )


def _new_point(
    values: dict[str, Any],
    delay: DelaySpec,
    ident: str,
    root_seed: int,
    grid_row: int,
    block_name: str,
    designs: tuple[str, ...],
    shapes: tuple[str, ...],
    alone: bool,
) -> GridPoint:
    """A new grid point: its id from the workload identity, its seed from the root seed."""
    point_id = int.from_bytes(hashlib.sha256(ident.encode()).digest()[:8], "big") >> 1
    workload = Workload(
        messages=values["messages"],
        rate_per_ms=values["rate_per_ms"],
        entries_per_ledger=values["entries_per_ledger"],
        batch_size=values["batch_size"],
        delay=delay,
        pattern=PatternSpec.parse(values["pattern"]),
        seed=point_seed(root_seed, point_id),
    )
    return GridPoint(
        grid_row=grid_row,
        block=block_name,
        workload=workload,
        trim_bits=values["trim_bits"],
        tick_ms=values["tick_ms"],
        replicate=values["replicate"],
        point_id=point_id,
        designs=designs,
        shapes=shapes,
        alone=alone,
    )


def parse_grid(raw: object, name: str, source: str, base: Path | None = None) -> Grid:
    """Validate a grid mapping (as loaded by :func:`load_yaml`) and expand its points."""
    where = _Where(source)
    if not isinstance(raw, dict):
        raise UsageError(f"{source}: a grid must be a mapping of keys to values")
    top = _axes(where, raw, base, TOP_KEYS)
    description = str(raw.get("description", ""))
    root_seed = _root_seed(where, raw)
    settings = _settings(where, raw)
    blocks = _blocks(where, raw)
    defaults = {k: [v] if not isinstance(v, list) else v for k, v in _DEFAULTS.items()}
    points: list[GridPoint] = []
    seen: dict[str, int] = {}  # workload identity -> position in points
    delays = _DelayCache()  # each file read once per grid: one content, one digest
    for i, block in enumerate(blocks):
        if not isinstance(block, dict):
            raise UsageError(
                f"{source}:{getattr(blocks, 'line', '?')}: blocks[{i}] is not a mapping"
            )
        block_name = str(block.get("name", f"block{i}"))
        alone = block.get("alone", False)
        if not isinstance(alone, bool):
            raise where.error(block, "alone", f"must be true or false, got {alone!r}")
        axes = {**defaults, **top, **_axes(where, block, base, ("name", "alone"))}
        kind = "tick_ms" if "tick_ms" in axes else "trim_bits"
        designs = tuple(dict.fromkeys(axes.pop("designs", DEFAULT_DESIGNS[kind])))
        shapes = tuple(dict.fromkeys(axes.pop("shapes")))
        for values in _expand_block(where, block, axes, block_name):
            _check_designs(where, block if "designs" in block else raw, designs, values)
            delay = delays[values["delay"]]
            values["delay_inputs"] = delay.input_digest
            ident = json.dumps(workload_identity(values), sort_keys=True)
            if ident in seen:  # one point serving several blocks: one computation
                j = seen[ident]
                points[j] = _merged(points[j], block_name, designs, shapes, alone)
                continue
            seen[ident] = len(points)
            points.append(
                _new_point(
                    values, delay, ident, root_seed, len(points), block_name, designs, shapes, alone
                )
            )
    return Grid(name, source, description, root_seed, tuple(points), settings)


def load_grid(path: str | Path) -> Grid:
    """A grid from a YAML file; UsageError naming the file (and line) when it is bad."""
    if not str(path).strip():
        raise UsageError("--grid must name a grid file, got ''")
    path = Path(path)
    raw = load_yaml(safe_yaml.read_user_text(path, "--grid"), str(path))
    return parse_grid(raw, path.stem, str(path), path.parent.resolve())


def profiles_path() -> Path:
    return Path(__file__).resolve().parent / PROFILE_FILE


def profile_names() -> list[str]:
    path = profiles_path()
    raw = load_yaml(safe_yaml.read_user_text(path, "sweep profiles"), str(path))
    return list(raw)


def load_profile(name: str) -> Grid:
    """The grid of profile ``name`` in :data:`PROFILE_FILE` (smoke, default, large)."""
    path = profiles_path()
    raw = load_yaml(safe_yaml.read_user_text(path, "sweep profiles"), str(path))
    check_choice("sweep profile", name, list(raw))
    return parse_grid(raw[name], name, f"{path} (profile {name})", path.parent)
