"""Figures sized for the page, one colour per design, legends outside, axes from zero."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt

from trackerlab.catalog import CATALOG
from trackerlab.reporting import design_color, from_zero, legend_outside, page_figure
from trackerlab.reporting.plots import PAGE_WIDTH_PX


def test_every_design_of_a_tracker_has_its_own_colour():
    by_tracker = {}
    for name in CATALOG:
        by_tracker.setdefault(CATALOG[name].tracker.name, []).append(design_color(name))
    for tracker, colours in by_tracker.items():
        assert len(set(colours)) == len(colours), tracker
    assert design_color("time-buckets") == design_color("time-buckets")
    # a labelled variant keeps its design's colour
    assert design_color("time-buckets-long-bitmap (wraps-roaring)") == design_color(
        "time-buckets-long-bitmap"
    )


def test_page_figure_is_never_wider_than_the_page():
    fig, _ = page_figure(1, 3, width=20)
    assert fig.get_figwidth() * fig.dpi <= PAGE_WIDTH_PX
    plt.close(fig)


def test_legend_outside_the_axes_and_axis_from_zero():
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.plot([1, 2, 3], [0.5, 2.0, 1.0], label="a")
    from_zero(ax)
    legend = legend_outside(ax)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box, axes = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
    assert box.x0 >= axes.x1  # right of the data, covering none of it
    assert ax.get_ylim()[0] == 0
    plt.close(fig)
