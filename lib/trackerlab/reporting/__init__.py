"""Report pipeline: profiles, papermill execution, HTML export, atomic publishing, index.

What notebooks use (every name here is public):

- :func:`answer` states the report's answer (the index's headline for it) and
  :func:`headline` publishes the figures listed under it;
- :func:`show_table` and :class:`Column` show a table for a reader (chosen columns, units
  in headers, numbers by :func:`format_number`, long tables cut with the full CSV linked);
- :func:`format_number`, :func:`format_bytes`, :func:`format_percent`, :func:`format_ratio`,
  :func:`format_duration` and :func:`format_delay` write numbers and delays in prose the
  way tables do;
- :func:`show_reproduction` shows published numbers against the models;
- :func:`display_path` and :func:`seed_title` / :func:`seed_short` keep machine paths and
  seed file names out of reports;
- :func:`bytes_per_entry_axes`, :func:`plot_bucket_grid`, :func:`plot_published_points`,
  :func:`container_share` / :func:`plot_container_share` for the time-bucket plots,
  :func:`plot_lines` (series that coincide share one line and one legend entry), and
  :func:`figure_defects` (which ``trackerlab report`` runs on every displayed figure).
"""

from trackerlab.paths import display_path
from trackerlab.reporting.figure_check import figure_defects
from trackerlab.reporting.formatting import (
    format_bytes,
    format_delay,
    format_duration,
    format_number,
    format_percent,
    format_ratio,
)
from trackerlab.reporting.headline import answer, headline
from trackerlab.reporting.plots import (
    bytes_per_entry_axes,
    coinciding,
    container_share,
    plot_bucket_grid,
    plot_container_share,
    plot_lines,
    plot_published_points,
)
from trackerlab.reporting.reader import reader_text
from trackerlab.reporting.reproduction import show_reproduction
from trackerlab.reporting.seeds import seed_short, seed_title
from trackerlab.reporting.tables import Column, show_table

__all__ = [
    "Column",
    "answer",
    "bytes_per_entry_axes",
    "coinciding",
    "container_share",
    "display_path",
    "figure_defects",
    "format_bytes",
    "format_delay",
    "format_duration",
    "format_number",
    "format_percent",
    "format_ratio",
    "headline",
    "plot_bucket_grid",
    "plot_container_share",
    "plot_lines",
    "plot_published_points",
    "reader_text",
    "seed_short",
    "seed_title",
    "show_reproduction",
    "show_table",
]
