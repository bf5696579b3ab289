"""Report pipeline: profiles, papermill execution, HTML export, atomic publishing, index.

Notebooks call :func:`headline` to publish the figures that ``reports/index.html`` shows next
to each report, and plot with the helpers of :mod:`~trackerlab.reporting.plots`.
"""

from trackerlab.reporting.headline import headline
from trackerlab.reporting.plots import bytes_per_entry_axes, plot_published_points

__all__ = ["bytes_per_entry_axes", "headline", "plot_published_points"]
