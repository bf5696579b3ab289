"""The figure check finds what a reader would see: overlaps, hidden series, unreadable labels."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
from IPython.core.interactiveshell import InteractiveShell

from trackerlab.reporting import figure_check
from trackerlab.reporting.figure_check import FIGURE_CHECK_MIME, figure_defects

X = np.linspace(0, 10, 50)


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_a_clean_figure_has_no_defects():
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(X, X, label="linear")
    ax.plot(X, X**1.5, label="faster")
    ax.set_xscale("log")
    ax.legend()
    assert figure_defects(fig) == []


def test_series_hidden_under_another_and_series_without_data():
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(X, X, color="tab:red", label="under")
    ax.plot(X, X, color="tab:blue", label="over")  # drawn later, on top
    ax.plot(X, np.where(X < 1, X + 2, X), color="tab:green", label="partly visible")
    ax.plot(X, X * np.nan, label="all NaN")
    ax.set_title("t")
    ax.legend()
    assert figure_defects(fig) == [
        "plot 't': legend entry 'under' shows no visible data "
        "(hidden under other artists, or nothing in view)",
        "plot 't': legend entry 'all NaN' shows no visible data "
        "(hidden under other artists, or nothing in view)",
    ]


def test_zero_height_bars_in_a_legend():
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.bar([0, 1], [3, 4], label="counted")
    ax.bar([0, 1], [0, 0], bottom=[3, 4], label="empty category")
    ax.legend()
    defects = figure_defects(fig)
    assert len(defects) == 1 and "'empty category'" in defects[0]


def test_overlapping_tick_labels_horizontal_and_rotated():
    fig, ax = plt.subplots(figsize=(2, 3))
    ax.bar(["aaaa bbbb cccc", "dddd eeee ffff", "gggg hhhh"], [1, 2, 3])
    assert figure_defects(fig) == [
        "plot 1 of 1: x tick labels 'aaaa bbbb cccc' and 'dddd eeee ffff' overlap",
        "plot 1 of 1: x tick labels 'dddd eeee ffff' and 'gggg hhhh' overlap",
    ]
    ax.tick_params(axis="x", rotation=60)  # rotated labels side by side do not touch
    fig.set_size_inches(4, 3)
    assert figure_defects(fig) == []


def test_minor_log_labels_that_collide_are_named_without_markup():
    fig, ax = plt.subplots(figsize=(4.5, 3))
    ax.plot([5, 80], [1, 2])
    ax.set_xscale("log")
    fig.set_size_inches(2.2, 3)
    defects = figure_defects(fig)
    assert "plot 1 of 1: x tick labels '2×10^1' and '3×10^1' overlap" in defects
    assert all("$" not in d and "mathdefault" not in d for d in defects)


def test_white_labels_on_a_light_colormap_are_unreadable():
    fig, ax = plt.subplots(figsize=(4, 3))
    values = np.arange(9).reshape(3, 3)
    ax.imshow(values, cmap="viridis")
    for (y, x), v in np.ndenumerate(values):
        ax.text(x, y, str(v), color="white", ha="center", va="center")
    defects = figure_defects(fig)
    assert [d.split("'")[1] for d in defects] == ["5", "6", "7", "8"]  # the yellow-green end
    for t in ax.texts:  # black on the light half fixes it
        if int(t.get_text()) >= 5:
            t.set_color("black")
    assert figure_defects(fig) == []


def test_the_kernel_extension_attaches_the_check_to_displayed_figures():
    shell = InteractiveShell.instance()
    figure_check.load_ipython_extension(shell)
    figure_check.load_ipython_extension(shell)  # loading twice is harmless
    fig, ax = plt.subplots()
    ax.plot([1, 2], [1, 2], label="a")
    ax.plot([1, 2], [1, 2], label="b")
    ax.legend()
    data, _ = shell.display_formatter.format(fig)
    assert data[FIGURE_CHECK_MIME]["defects"] == [
        "plot 1 of 1: legend entry 'a' shows no visible data "
        "(hidden under other artists, or nothing in view)"
    ]
    assert shell.display_formatter.format("text")[0].get(FIGURE_CHECK_MIME) is None


def test_the_smallest_visible_font_and_the_dpi_are_recorded_for_the_browser_check():
    fig, ax = plt.subplots(dpi=80)
    ax.set_title("title", fontsize=14)
    ax.tick_params(labelsize=11)
    ax.set_xlabel("x", fontsize=12)
    ax.annotate("small", (0.5, 0.5), fontsize=7.5)
    ax.text(0.1, 0.1, "hidden", fontsize=3).set_visible(False)
    ax.text(0.2, 0.2, "", fontsize=2)  # empty: draws nothing
    assert figure_check.figure_fonts(fig) == (7.5, 80.0)
    shell = InteractiveShell.instance()
    figure_check.load_ipython_extension(shell)
    check = shell.display_formatter.format(fig)[0][FIGURE_CHECK_MIME]
    assert (check["font_pt"], check["dpi"]) == (7.5, 80.0)


def test_a_light_band_is_visible_and_a_band_under_an_opaque_one_is_not():
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.plot(X, X, label="line")
    ax.axhspan(2, 4, color="C3", alpha=0.08, label="light band")
    ax.legend()
    assert figure_defects(fig) == []
    ax.axhspan(1, 5, color="white", label="cover")  # drawn later, opaque, over the band
    ax.legend()
    assert [d.split("'")[1] for d in figure_defects(fig)] == ["light band"]


def test_plot_lines_draws_coinciding_series_once():
    import pandas as pd

    from trackerlab.reporting import coinciding, plot_lines

    t = np.arange(5.0)
    frame = pd.DataFrame(
        {
            "t": np.tile(t, 4),
            "y": np.concatenate([t, t, t * 1.0005, 10 - t]),
            "design": np.repeat(["a", "b", "c", "d"], 5),
        }
    )
    assert coinciding(frame, "design", "y") == [(["a", "b", "c"], False), (["d"], True)]
    assert coinciding(frame[frame.design < "c"], "design", "y") == [(["a", "b"], True)]
    fig, ax = plt.subplots(figsize=(5, 3))
    plot_lines(ax, frame, "t", "y", "design")
    ax.legend()
    assert [line.get_label() for line in ax.get_lines()] == ["a ≈ b ≈ c", "d"]
    assert figure_defects(fig) == []


def test_bars_on_a_log_axis():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.bar(["a", "b"], [10, 1000])
    assert figure_defects(fig) == []
    ax.set_yscale("log")
    assert figure_defects(fig) == ["plot 1 of 1: bars on a log axis"]
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.barh(["a", "b"], [10, 1000])
    ax.set_xscale("log")
    ax.set_yscale("log")  # the category axis does not matter
    assert figure_defects(fig) == ["plot 1 of 1: bars on a log axis"]
