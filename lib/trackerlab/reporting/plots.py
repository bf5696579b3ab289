"""Small matplotlib helpers shared by the notebooks: figures sized for the page, one colour
per design, legends outside the data, log-log size plots.

A report's page shows a figure at most about :data:`PAGE_WIDTH_PX` pixels wide; the inline
backend saves it at :data:`DPI`. :func:`page_figure` makes figures at most
:data:`PAGE_WIDTH_IN` wide, so the browser never shrinks them and a 9-point font stays 12 px
on screen; :func:`design_color` gives every design of the catalog the same colour in every
report; :func:`legend_outside` puts a legend right of (or under) the axes; :func:`from_zero`
starts an axis that cannot go negative at 0.

pyplot is imported inside the functions: importing :mod:`trackerlab.reporting` (the report
kernel does, before IPython selects the inline backend) must not fix matplotlib's backend.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from trackerlab.catalog.colors import design_color, design_colors

if TYPE_CHECKING:
    from matplotlib.artist import Artist
    from matplotlib.transforms import Bbox

__all__ = [
    "DPI",
    "MIN_FONT_PT",
    "PAGE_WIDTH_IN",
    "PAGE_WIDTH_PX",
    "bytes_per_entry_axes",
    "coinciding",
    "container_share",
    "design_color",
    "design_colors",
    "from_zero",
    "legend_outside",
    "page_figure",
    "plot_bucket_grid",
    "plot_container_share",
    "plot_lines",
    "plot_published_points",
]

#: Width (CSS px) a report's page gives a figure (the HTML export's column).
PAGE_WIDTH_PX = 960
#: Dots per inch of the inline backend's PNGs (matplotlib's default ``figure.dpi``).
DPI = 100
#: Widest figure (inches): shown at its natural size on the page.
PAGE_WIDTH_IN = PAGE_WIDTH_PX / DPI
#: Smallest font (points) a figure uses: 9 pt at 100 dpi is 12.5 px on screen.
MIN_FONT_PT = 9


def page_figure(nrows: int = 1, ncols: int = 1, height: float = 4.0, width: float = 0.0, **kw):
    """``plt.subplots`` sized for the report's page: ``width`` inches (default and cap
    :data:`PAGE_WIDTH_IN`), ``height`` inches *per row*, constrained layout."""
    import matplotlib.pyplot as plt

    w = min(width or PAGE_WIDTH_IN, PAGE_WIDTH_IN)
    kw.setdefault("layout", "constrained")
    return plt.subplots(nrows, ncols, figsize=(w, height * nrows), **kw)


def legend_outside(target, where: str = "right", **kw):
    """A legend outside the data: right of the axes (``where="right"``) or under the figure
    (``"below"``, for wide legends). ``target`` is an Axes or a Figure (one legend for the
    figure, from the first axes' handles and labels, duplicates dropped)."""
    from matplotlib.figure import Figure

    kw.setdefault("fontsize", MIN_FONT_PT)
    kw.setdefault("frameon", False)
    if isinstance(target, Figure):
        seen: dict[str, Artist] = {}
        for ax in target.axes:
            for h, label in zip(*ax.get_legend_handles_labels(), strict=True):
                seen.setdefault(label, h)
        if where == "below":
            return target.legend(
                list(seen.values()),
                list(seen),
                loc="outside lower center",
                ncols=kw.pop("ncols", min(4, len(seen)) or 1),
                **kw,
            )
        return target.legend(list(seen.values()), list(seen), loc="outside right upper", **kw)
    if where == "below":
        return target.legend(
            loc="upper center", bbox_to_anchor=(0.5, -0.18), ncols=kw.pop("ncols", 3), **kw
        )
    return target.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, **kw)


def from_zero(ax, axis: str = "y") -> None:
    """Start ``axis`` at 0 for a quantity that cannot be negative (memory, counts, times);
    the top keeps matplotlib's choice."""
    if axis == "y":
        ax.set_ylim(bottom=0)
    else:
        ax.set_xlim(left=0)


def bytes_per_entry_axes(title: str, xlabel: str = "messages per bucket M"):
    """A log-log axes for bytes per entry, labelled the same way in every report."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(PAGE_WIDTH_IN, 5.5), layout="constrained")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("bytes per entry (log)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.25)
    return fig, ax


#: Where a point's label may go (offset points), tried in order until it overlaps no other.
_LABEL_OFFSETS = ((6, 6), (6, -16), (-34, 6), (-34, -16), (6, 20), (6, -30))


def plot_published_points(
    ax, points: pd.DataFrame, x: str, y: str, label: str = "published"
) -> None:
    """Mark the seeds' numbers (one annotated star per id); a label that would overlap an
    earlier one moves to the next free offset (:data:`_LABEL_OFFSETS`)."""
    ax.scatter(points[x], points[y], marker="*", s=180, color="black", zorder=5, label=label)
    renderer = ax.figure.canvas.get_renderer()
    placed: list[Bbox] = []
    for _, p in points.iterrows():
        for offset in _LABEL_OFFSETS:
            text = ax.annotate(
                p["id"],
                (p[x], p[y]),
                textcoords="offset points",
                xytext=offset,
                fontsize=MIN_FONT_PT,
            )
            box = text.get_window_extent(renderer)
            if not any(box.overlaps(other) for other in placed):
                break
            text.remove()
        else:
            text = ax.annotate(
                p["id"], (p[x], p[y]), textcoords="offset points", xytext=(6, 6), fontsize=9
            )
            box = text.get_window_extent(renderer)
        placed.append(box)


def plot_bucket_grid(ax, table: pd.DataFrame, curves: pd.DataFrame, theory_label: str) -> None:
    """Theory curves and model markers of a time-bucket grid (``bucket_sweeps.grid`` and
    ``bucket_sweeps.theory_curves``): lines for the seed's formula, the corrected theory
    (and with run containers when the grid has run-optimized rows); filled markers for the
    JVM model, open ones for Python-real bytes."""
    runs = bool(table.run_optimize.any())
    m = curves.messages_per_bucket
    ax.plot(m, curves.published_b_per_entry, "k--", label=f"{theory_label} (as published)")
    ax.plot(m, curves.corrected_b_per_entry, "C0-", alpha=0.6, label="corrected theory")
    if runs:
        ax.plot(
            m,
            curves.corrected_runs_b_per_entry,
            "C2-",
            alpha=0.6,
            label="corrected theory, run containers",
        )
    for optimized, marker, color in ((False, "o", "C0"), (True, "s", "C2")):
        part = table[table.run_optimize == optimized]
        if not len(part):
            continue
        label = "time buckets, run-optimized" if optimized else "time buckets"
        ax.scatter(
            part.messages_per_bucket,
            part.jvm_b_per_entry,
            marker=marker,
            color=color,
            label=f"{label} (JVM model)",
        )
        ax.scatter(
            part.messages_per_bucket,
            part.python_b_per_entry,
            marker=marker,
            s=70,
            facecolors="none",
            edgecolors=color,
            label=f"{label} (Python-real)",
        )


def container_share(table: pd.DataFrame) -> pd.DataFrame:
    """The grid's rows as Java builds them, with ``containers`` and ``bitset_share``."""
    mix = table[~table.run_optimize].copy()
    mix["containers"] = mix.array_containers + mix.bitset_containers
    mix["bitset_share"] = mix.bitset_containers / mix.containers.where(mix.containers > 0)
    return mix


def plot_container_share(mix: pd.DataFrame, title: str):
    """Share of 8 KiB bitset containers against messages per bucket, one line per rate."""
    import matplotlib.pyplot as plt

    from trackerlab.reporting.formatting import format_number

    fig, ax = plt.subplots(figsize=(8, 3.8), layout="constrained")
    for rate, part in mix.groupby("rate_per_ms"):
        part = part.sort_values("messages_per_bucket")
        ax.plot(
            part.messages_per_bucket,
            part.bitset_share,
            "o-",
            label=f"x = {format_number(rate)} msg/ms",
        )
    ax.axvline(4096, color="grey", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("messages per bucket M (log); dotted: 4,096 ids, the array container's limit")
    ax.set_ylabel("bitset containers (share)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    legend_outside(ax)
    return fig


def coinciding(
    frame: pd.DataFrame, by: str, y: str, tol: float = 0.005, log: bool = False
) -> list[tuple[list[str], bool]]:
    """Groups of ``by`` values whose ``y`` series lie on top of each other, in order, each
    with a flag: True when they are equal, False when they only differ by less than ``tol``
    of the plotted range (``log``: of the range of log10 values), less than a pixel or two."""
    import numpy as np

    def scaled(part: pd.DataFrame) -> np.ndarray:
        v = part[y].to_numpy(dtype=float)
        return np.log10(np.where(v > 0, v, np.nan)) if log else v

    series = [(str(key), scaled(part)) for key, part in frame.groupby(by, sort=False)]
    finite = np.concatenate([v[np.isfinite(v)] for _, v in series] or [np.zeros(1)])
    span = float(finite.max() - finite.min()) if len(finite) else 0.0
    groups: list[tuple[list[str], bool]] = []
    heads: list[np.ndarray] = []
    for key, v in series:
        for i, head in enumerate(heads):
            if len(head) != len(v):
                continue
            equal = bool(np.allclose(v, head, rtol=1e-9, atol=1e-12, equal_nan=True))
            if equal or np.allclose(v, head, rtol=0.0, atol=tol * span, equal_nan=True):
                names, same = groups[i]
                groups[i] = ([*names, key], same and equal)
                break
        else:
            groups.append(([key], True))
            heads.append(v)
    return groups


def plot_lines(
    ax,
    frame: pd.DataFrame,
    x: str,
    y: str,
    by: str,
    *,
    colors: dict | None = None,
    scale: float = 1.0,
    log: bool = False,
    step: bool = False,
) -> None:
    """One line of ``y / scale`` against ``x`` per value of ``by``. Series that lie on top of
    each other are drawn once, labelled ``a = b`` (equal) or ``a ≈ b`` (within a pixel or
    two), so no legend entry names a hidden line; on a log axis values <= 0 are left out.
    A series named after a catalog design takes its :func:`design_color` unless ``colors``
    says otherwise."""
    for group, equal in coinciding(frame, by, y, log=log):
        rows = frame[frame[by].astype(str) == group[0]]
        values = rows[y] / scale
        if log:
            values = values.where(values > 0)
        label = (" = " if equal else " ≈ ").join(group)
        color = (colors or {}).get(group[0]) or design_colors().get(group[0])
        if step:
            ax.step(rows[x], values, where="post", label=label, color=color)
        else:
            ax.plot(rows[x], values, label=label, color=color)
    if log:
        ax.set_yscale("log")
