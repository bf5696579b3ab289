"""Defects a reader sees in a matplotlib figure, found from bounding boxes and rendered pixels.

:func:`figure_defects` draws a figure with Agg and reports:

- **overlapping tick labels** on one axis (``3×10¹4×10¹`` on a log axis): the label
  rectangles (rotated labels in their own frame) intersect by more than half a pixel;
- **legend entries with no visible artist**: hiding every artist behind a legend label leaves
  the rendered figure unchanged (fewer than :data:`MIN_VISIBLE_PIXELS` pixels change by
  more than :data:`PIXEL_DELTA`, and no faint change covers a solid square), so the entry
  names a series that lies under other ones, has no data in view, or is drawn only outside
  the axes;
- **unreadable annotations**: text drawn over an image (heatmap cell labels) whose colour has
  a contrast ratio under 3:1 (WCAG) against the median colour under it;
- **bars on a log axis**: a bar's length then depends on where the axis happens to start
  (and stacked segments cannot be compared).

Cost: one draw per figure, plus one per legend entry and one for the annotations.

``trackerlab report`` loads this module into every notebook kernel as an IPython extension
(:func:`load_ipython_extension`): each figure a notebook displays carries its defects in a
:data:`FIGURE_CHECK_MIME` output, which the runner copies into the report's ``NAME.json``
(``figure_defects``); ``tests/reporting/test_render_all.py`` requires that list to be empty
for every notebook rendered under the smoke profile.
"""

from __future__ import annotations

import itertools
import math
import time
from collections import Counter

import numpy as np

__all__ = ["FIGURE_CHECK_MIME", "figure_defects", "figure_fonts", "load_ipython_extension"]

FIGURE_CHECK_MIME = "application/vnd.trackerlab.figure-check+json"
#: A pixel counts as changed when one channel moves by more than this (0-255).
PIXEL_DELTA = 60
#: An artist is visible when hiding it changes at least this many pixels ...
MIN_VISIBLE_PIXELS = 6
#: ... or a solid square of this side (pixels) by more than FAINT_DELTA (a light band).
FAINT_BLOCK = 5
FAINT_DELTA = 8
#: Smallest contrast ratio for text drawn over an image.
MIN_CONTRAST = 3.0


def _render(fig) -> np.ndarray:
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba())[..., :3].astype(np.int16)


def _render_without(fig, artists: list) -> np.ndarray:
    """The figure's pixels with ``artists`` hidden (their visibility is restored)."""
    was = [a.get_visible() for a in artists]
    for a in artists:
        a.set_visible(False)
    try:
        return _render(fig)
    finally:
        for a, visible in zip(artists, was, strict=True):
            a.set_visible(visible)


def _canvas(fig):
    """Give the figure an Agg canvas when it has none that can render to pixels."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if not hasattr(fig.canvas, "buffer_rgba"):
        FigureCanvasAgg(fig)
    return fig.canvas


def _axes_name(ax) -> str:
    """The axes as a reader finds it: its title, else its y label, else its position."""
    title = (ax.get_title() or ax.get_ylabel() or ax.get_xlabel()).replace("\n", " ")
    if title:
        return f"plot {title!r}"
    return f"plot {ax.figure.axes.index(ax) + 1} of {len(ax.figure.axes)}"


# ----------------------------------------------------------------- tick labels


def _label_box(text, renderer) -> tuple[float, float, float, float, float]:
    """(centre x, centre y, half width, half height, angle) of a text's own rectangle."""
    box = text.get_window_extent(renderer)
    angle = math.radians(text.get_rotation() % 180)
    if abs(math.sin(angle)) < 1e-6:
        return box.x0 + box.width / 2, box.y0 + box.height / 2, box.width / 2, box.height / 2, 0
    rotation = text.get_rotation()
    text.set_rotation(0)
    flat = text.get_window_extent(renderer)
    text.set_rotation(rotation)
    cx, cy = box.x0 + box.width / 2, box.y0 + box.height / 2
    return cx, cy, flat.width / 2, flat.height / 2, angle


def _overlap(a, b, slack: float = 0.5) -> bool:
    """Two label rectangles intersect (same angle: in their frame; else their hulls)."""
    if abs(a[4] - b[4]) > 1e-6:
        a = (*a[:2], *_hull(a), 0)
        b = (*b[:2], *_hull(b), 0)
    c, s = math.cos(-a[4]), math.sin(-a[4])
    dx, dy = b[0] - a[0], b[1] - a[1]
    u, v = dx * c - dy * s, dx * s + dy * c
    return abs(u) < a[2] + b[2] - slack and abs(v) < a[3] + b[3] - slack


def _hull(r) -> tuple[float, float]:
    c, s = abs(math.cos(r[4])), abs(math.sin(r[4]))
    return r[2] * c + r[3] * s, r[2] * s + r[3] * c


def _plain(text: str) -> str:
    """A tick label without mathtext markup: ``$\\mathdefault{3\\times10^{1}}$`` -> ``3×10^1``."""
    for old, new in (("\\mathdefault", ""), ("\\times", "×"), ("$", ""), ("{", ""), ("}", "")):
        text = text.replace(old, new)
    return text


def _drawn_ticks(axis):
    try:
        return axis._update_ticks()  # the ticks matplotlib draws: inside the view interval
    except AttributeError:  # pragma: no cover - a matplotlib without the private helper
        return axis.get_major_ticks() + axis.get_minor_ticks()


def tick_label_overlaps(fig, renderer) -> list[str]:
    """Neighbouring tick labels of one axis that overlap on screen."""
    found = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for axis_name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            ticks = _drawn_ticks(axis)
            for side in ("label1", "label2"):  # bottom/left and top/right labels apart
                labels = [getattr(tick, side) for tick in ticks]
                labels = [t for t in labels if t.get_visible() and t.get_text().strip()]
                boxes = [(label, _label_box(label, renderer)) for label in labels]
                boxes.sort(key=lambda item: item[1][0 if axis_name == "x" else 1])
                for (la, a), (lb, b) in itertools.pairwise(boxes):
                    if _overlap(a, b):
                        found.append(
                            f"{_axes_name(ax)}: {axis_name} tick labels "
                            f"{_plain(la.get_text())!r} and {_plain(lb.get_text())!r} overlap"
                        )
    return found


# ----------------------------------------------------------------- legend entries


def _legends(fig):
    """``(where, legend)`` for every visible legend of the figure."""
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            yield _axes_name(ax), legend
    yield from (("figure legend", lg) for lg in fig.legends if lg.get_visible())


def _labelled_artists(fig, label: str) -> list:
    """Every artist of the figure carrying ``label`` (a container stands for its parts)."""
    found: list[object] = []
    for ax in fig.axes:
        handles, labels = ax.get_legend_handles_labels()
        for handle, text in zip(handles, labels, strict=True):
            if text != label:
                continue
            parts = list(handle) if hasattr(handle, "__iter__") else [handle]
            found.extend(p for p in parts if hasattr(p, "set_visible") and p is not None)
    return found


def _has_block(mask: np.ndarray, side: int) -> bool:
    """Whether ``mask`` holds a solid ``side`` x ``side`` square (an area, not a line's edge)."""
    if mask.shape[0] < side or mask.shape[1] < side:
        return False
    sums = np.pad(mask.astype(np.int32).cumsum(0).cumsum(1), ((1, 0), (1, 0)))
    window = sums[side:, side:] - sums[:-side, side:] - sums[side:, :-side] + sums[:-side, :-side]
    return bool((window == side * side).any())


def _visible_change(delta: np.ndarray) -> bool:
    """Whether hiding an artist changed what a reader sees: a few strongly changed pixels
    (a line, markers), or a faint but solid area (a light band or bar). The faint edges of a
    line drawn exactly under another change no pixel strongly and form no area."""
    if int((delta > PIXEL_DELTA).sum()) >= MIN_VISIBLE_PIXELS:
        return True
    return _has_block(delta > FAINT_DELTA, FAINT_BLOCK)


def invisible_legend_entries(fig) -> list[str]:
    """Legend labels whose artists do not change the rendered figure when hidden."""
    found = []
    for where, legend in _legends(fig):
        base = _render_without(fig, [legend])
        for text in legend.get_texts():
            label = text.get_text()
            artists = [a for a in _labelled_artists(fig, label) if a.get_visible()]
            if not artists:
                continue  # a proxy handle drawn only in the legend: nothing to compare
            hidden = _render_without(fig, [legend, *artists])
            if not _visible_change(np.abs(hidden - base).max(axis=2)):
                found.append(
                    f"{where}: legend entry {label!r} shows no visible data "
                    "(hidden under other artists, or nothing in view)"
                )
    return found


# ----------------------------------------------------------------- annotations


def _luminance(rgb: np.ndarray) -> float:
    c = np.asarray(rgb, dtype=float) / 255.0
    c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2])


def contrast_ratio(a: np.ndarray, b: np.ndarray) -> float:
    """WCAG contrast ratio of two sRGB colours (0-255)."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def low_contrast_annotations(fig, renderer) -> list[str]:
    """Texts inside image axes whose colour is too close to the pixels under them."""
    from matplotlib.colors import to_rgb

    placed = [
        (ax, t)
        for ax in fig.axes
        if ax.images
        for t in ax.texts
        if t.get_visible() and t.get_text()
    ]
    if not placed:
        return []
    texts = [t for _, t in placed]
    boxes = [t.get_window_extent(renderer) for t in texts]
    under = _render_without(fig, texts)
    height = under.shape[0]
    found = []
    for (ax, t), box in zip(placed, boxes, strict=True):
        x0, x1 = max(int(box.x0), 0), min(math.ceil(box.x1), under.shape[1])
        y0, y1 = max(int(height - box.y1), 0), min(math.ceil(height - box.y0), height)
        if x1 <= x0 or y1 <= y0:
            continue
        background = np.median(under[y0:y1, x0:x1].reshape(-1, 3), axis=0)
        colour = np.array(to_rgb(t.get_color())) * 255
        ratio = contrast_ratio(colour, background)
        if ratio < MIN_CONTRAST:
            found.append(
                f"{_axes_name(ax)}: annotation {t.get_text()!r} has contrast {ratio:.1f}:1 "
                f"against what lies under it (< {MIN_CONTRAST:g}:1)"
            )
    return found


def bars_on_log_axes(fig) -> list[str]:
    """Axes that draw bars along a logarithmic value axis."""
    from matplotlib.container import BarContainer

    found = []
    for ax in fig.axes:
        bars = [c for c in ax.containers if isinstance(c, BarContainer) and len(c)]
        for c in bars:
            value_scale = ax.get_xscale() if c.orientation == "horizontal" else ax.get_yscale()
            if value_scale in ("log", "symlog"):
                found.append(f"{_axes_name(ax)}: bars on a {value_scale} axis")
                break
    return found


def figure_defects(fig) -> list[str]:
    """Every defect of ``fig`` (empty when it reads well)."""
    canvas = _canvas(fig)
    _render(fig)
    renderer = canvas.get_renderer()
    defects = tick_label_overlaps(fig, renderer)
    defects += invisible_legend_entries(fig)
    defects += low_contrast_annotations(fig, renderer)
    defects += bars_on_log_axes(fig)
    counts = Counter(defects)
    defects = [d if counts[d] == 1 else f"{d} (x{counts[d]})" for d in dict.fromkeys(defects)]
    title = fig._suptitle.get_text() if fig._suptitle is not None else ""
    return [f"figure {title!r}, {d}" if title else d for d in defects]


def figure_title(fig) -> str:
    """What the figure shows, for an image's alternative text: its titles, else its labels."""
    parts = [fig._suptitle.get_text()] if fig._suptitle is not None else []
    parts += [ax.get_title() or ax.get_ylabel() for ax in fig.axes]
    return "; ".join(dict.fromkeys(p.replace("\n", " ") for p in parts if p)) or "figure"


def figure_fonts(fig) -> tuple[float | None, float]:
    """(smallest font size in points of any visible, non-empty text, the figure's dpi).

    The PNG the inline backend embeds is drawn at ``fig.dpi``, so text of ``pt`` points is
    ``pt * dpi / 72`` pixels high in the image; the browser check scales that by the share of
    the image's natural width the page shows (:mod:`trackerlab.reporting.browser_check`).
    O(number of artists).
    """
    from matplotlib.text import Text

    sizes = [
        float(t.get_fontsize())
        for t in fig.findobj(Text)
        if t.get_visible() and t.get_text().strip() and t.figure is fig
    ]
    return (min(sizes) if sizes else None), float(fig.dpi)


def _check(obj: object) -> dict | None:
    """The figure-check bundle of ``obj`` if it is a matplotlib figure, else None."""
    import sys

    figure_module = sys.modules.get("matplotlib.figure")
    if figure_module is None or not isinstance(obj, figure_module.Figure):
        return None
    started = time.perf_counter()
    try:
        defects = figure_defects(obj)
        font_pt, dpi = figure_fonts(obj)
        return {
            "defects": defects,
            "title": figure_title(obj),
            "font_pt": font_pt,
            "dpi": dpi,
            "seconds": time.perf_counter() - started,
        }
    except Exception as exc:  # a broken check must show, not hide the figure's defects
        return {"defects": [f"figure check failed: {type(exc).__name__}: {exc}"]}


def load_ipython_extension(ipython) -> None:
    """Attach :func:`figure_defects` to every matplotlib figure the kernel displays.

    The formatter answers for figures itself instead of registering the ``Figure`` type:
    IPython's inline backend removes every formatter's ``Figure`` entry when it activates.
    Importing matplotlib here would also fix its backend before the kernel sets the inline
    one.
    """
    from IPython.core.formatters import JSONFormatter
    from traitlets import Unicode

    class FigureCheckFormatter(JSONFormatter):
        format_type = Unicode(FIGURE_CHECK_MIME)

        def __call__(self, obj):
            return _check(obj) if self.enabled else None

    formatters = ipython.display_formatter.formatters
    if FIGURE_CHECK_MIME in formatters:
        return
    formatters[FIGURE_CHECK_MIME] = FigureCheckFormatter(parent=ipython.display_formatter)
    active = ipython.display_formatter.active_types
    if FIGURE_CHECK_MIME not in active:
        ipython.display_formatter.active_types = [*active, FIGURE_CHECK_MIME]
