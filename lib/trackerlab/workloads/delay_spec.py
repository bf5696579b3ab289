"""Delay distributions of a workload: ``fixed``, ``uniform``, ``exponential``, ``empirical``
and mixtures, parsed from the spec strings users type.

Spec syntax (``--delay``): ``fixed:D``, ``uniform:LO:HI``, ``exponential:MEAN``,
``empirical:V1@P1,V2@P2,...`` or ``empirical:FILE`` (a one-column CSV/text of delays), and
mixtures ``mix:0.8*uniform:0:60s+0.2*uniform:1d:30d``. Durations take ``ms`` (default),
``s``, ``m``, ``h`` or ``d`` (:mod:`trackerlab.workloads.units`). A parsed spec keeps the
text it came from (``text``), which sweep grids use as the spec's identity.
"""

from __future__ import annotations

import hashlib
import io
import math
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from trackerlab.core.errors import UsageError
from trackerlab.core.params import check_float, check_positive
from trackerlab.core.safe_yaml import read_user_file
from trackerlab.workloads.units import MAX_DURATION_MS, parse_duration_ms

#: The largest ``empirical:FILE`` a spec reads (values are kept in memory).
MAX_DELAY_FILE_BYTES = 64 << 20

DELAY_KINDS = ("fixed", "uniform", "exponential", "empirical", "mix")


@dataclass(frozen=True)
class DelaySpec:
    """A delay distribution in ms: ``kind`` and its parameters (see the module docstring)."""

    kind: str
    params: tuple[float, ...] = ()
    weights: tuple[float, ...] = ()
    parts: tuple[DelaySpec, ...] = ()
    #: the spec string it was parsed from (not part of equality: ``fixed:1s == fixed:1000ms``)
    text: str = field(default="", compare=False)
    #: ``(path, sha256)`` of every file the spec read (``empirical:FILE``): a sweep's resume
    #: key includes the content, so an edited file is never mistaken for the old one
    files: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    @classmethod
    def parse(cls, text: str) -> DelaySpec:
        """Parse a delay spec; UsageError naming the spec and the valid kinds. O(len(text))."""
        spec = cls._parse(text)
        return replace(spec, text=text.strip(), files=spec.files)

    @classmethod
    def _parse(cls, text: str) -> DelaySpec:
        kind, _, rest = text.strip().partition(":")
        args = rest.split(":") if rest else []
        bad = f"--delay {text!r}"
        if kind == "fixed" and len(args) == 1:
            d = parse_duration_ms(args[0])
            return cls("fixed", (d,))
        if kind == "uniform" and len(args) == 2:
            lo, hi = parse_duration_ms(args[0]), parse_duration_ms(args[1])
            if hi < lo:
                raise UsageError(f"{bad}: uniform needs LO <= HI")
            return cls("uniform", (lo, hi))
        if kind == "exponential" and len(args) == 1:
            mean = parse_duration_ms(args[0])
            check_positive(f"{bad}: exponential mean", mean)
            return cls("exponential", (mean,))
        if kind == "empirical" and rest:
            return cls._empirical(rest, bad)
        if kind == "mix" and rest:
            return cls._mixture(rest, bad)
        if kind not in DELAY_KINDS:
            raise UsageError(
                f"unknown delay distribution {kind!r}; choose one of: {', '.join(DELAY_KINDS)}"
            )
        raise UsageError(
            f"malformed {bad}; use fixed:D, uniform:LO:HI, exponential:MEAN, "
            "empirical:V@P,... or empirical:FILE, mix:W*SPEC+W*SPEC"
        )

    @classmethod
    def _empirical(cls, rest: str, bad: str) -> DelaySpec:
        files: tuple[tuple[str, str], ...] = ()
        if "@" in rest:
            values, weights = [], []
            for item in rest.split(","):
                value, sep, weight = item.partition("@")
                if not sep:
                    raise UsageError(f"malformed {bad}: each item is VALUE@PROBABILITY")
                values.append(parse_duration_ms(value))
                weights.append(check_float(f"{bad} probability", weight, 0, None))
        else:
            values, digest = _read_delay_file(Path(rest), bad)
            weights = [1.0] * len(values)
            files = ((str(Path(rest)), digest),)
        if not values or sum(weights) <= 0:
            raise UsageError(f"{bad}: needs at least one value with positive probability")
        total = sum(weights)
        return cls("empirical", tuple(values), tuple(w / total for w in weights), files=files)

    @classmethod
    def _mixture(cls, rest: str, bad: str) -> DelaySpec:
        parts, weights = [], []
        for item in rest.split("+"):
            weight, sep, spec = item.partition("*")
            if not sep:
                raise UsageError(f"malformed {bad}: each part is WEIGHT*SPEC")
            weights.append(check_float(f"{bad} weight", weight, 0, None))
            parts.append(cls.parse(spec))
        total = sum(weights)
        if total <= 0:
            raise UsageError(f"{bad}: weights must sum to more than 0")
        files = tuple(f for p in parts for f in p.files)
        return cls("mix", (), tuple(w / total for w in weights), tuple(parts), files=files)

    @property
    def input_digest(self) -> str:
        """SHA-256 over the contents of the files the spec read ('' when it read none)."""
        if not self.files:
            return ""
        return hashlib.sha256("".join(d for _, d in self.files).encode()).hexdigest()

    def sample(self, u: np.ndarray, v: np.ndarray | None = None) -> np.ndarray:
        """Delays in integer ms from uniforms ``u`` (inverse transform; ``v`` picks mixture parts)."""
        if self.kind == "fixed":
            return np.full(u.shape, int(self.params[0]), dtype=np.int64)
        if self.kind == "uniform":
            lo, hi = self.params
            return np.floor(lo + u * (hi - lo)).astype(np.int64)
        if self.kind == "exponential":  # params[1]: an offset (delay_forms.shifted)
            offset = self.params[1] if len(self.params) > 1 else 0.0
            return np.floor(offset - self.params[0] * np.log1p(-u)).astype(np.int64)
        if self.kind == "empirical":
            cdf = np.cumsum(self.weights)
            idx = np.minimum(np.searchsorted(cdf, u, side="right"), len(cdf) - 1)
            return np.asarray(self.params, dtype=np.float64)[idx].astype(np.int64)
        assert v is not None, "a mixture needs a second uniform stream"
        cdf = np.cumsum(self.weights)
        which = np.minimum(np.searchsorted(cdf, v, side="right"), len(cdf) - 1)
        out = np.empty(u.shape, dtype=np.int64)
        for k, part in enumerate(self.parts):
            mask = which == k
            out[mask] = part.sample(u[mask], None)
        return out

    @property
    def max_ms(self) -> float:
        """The largest delay the distribution can produce (inf for exponential)."""
        if self.kind == "fixed":
            return self.params[0]
        if self.kind in ("uniform", "empirical"):
            return max(self.params)
        if self.kind == "exponential":
            return math.inf
        return max(p.max_ms for p in self.parts)


def _read_delay_file(path: Path, bad: str) -> tuple[list[float], str]:
    """The delays of a one-column CSV/text file and the SHA-256 of the bytes read (read once,
    so the digest is that of the values used). UsageError for anything else."""
    data = read_user_file(path, bad, MAX_DELAY_FILE_BYTES)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an empty file: reported just below
            table = np.loadtxt(io.BytesIO(data), delimiter=",", ndmin=2, dtype=np.float64)
    except (ValueError, UnicodeDecodeError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UsageError(f"{bad}: {path} is not a column of numbers ({reason})") from None
    if table.size and table.shape[1] != 1:
        raise UsageError(
            f"{bad}: {path} has {table.shape[1]} columns; give one column of delays (ms)"
        )
    values = table.ravel().tolist()
    if any(not (0 <= v <= MAX_DURATION_MS) for v in values):  # NaN fails too
        raise UsageError(f"{bad}: delays in {path} must be finite, >= 0 and at most 1000 years")
    return values, hashlib.sha256(data).hexdigest()
