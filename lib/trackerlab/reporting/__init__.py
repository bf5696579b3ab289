"""Report pipeline: profiles, papermill execution, HTML export, atomic publishing, index.

What notebooks use (every name here is public):

- :func:`answer` states the report's answer (the index's headline for it) and
  :func:`headline` publishes the figures listed under it;
- :func:`show_table` and :class:`Column` show a table for a reader (chosen columns, units
  in headers, numbers by :func:`format_number`, yes/no, "—" for missing values, no index,
  long tables cut with the full CSV linked); :func:`reader_header` turns ``per_topic_mib``
  into ``per topic (MiB)``; :func:`show_designs`, :func:`show_choices` and
  :func:`show_checks` show the capacity plan's tables (:func:`plan_notes` and
  :func:`plan_headline` its notes and index figure, :func:`show_plan_choices` its
  recommendation);
- :func:`show_markdown`, :func:`show_conclusions`, :func:`bullets` and
  :func:`escape_markdown` display generated text as markdown that renders as its words;
- :func:`format_number`, :func:`format_bytes`, :func:`format_percent`, :func:`format_ratio`,
  :func:`format_duration` and :func:`format_delay` write numbers and delays in prose the
  way tables do;
- :func:`show_broker_comparisons`, :func:`show_broker_summary`, :func:`plot_broker_runs` and
  :func:`plot_broker_heap` show the real-broker report's tables and figures;
- :func:`sweep_source_notes`, :func:`sweep_answer`, :func:`sweep_headlines` and
  :func:`sweep_conclusions` word the Spark sweep report (its tables' columns:
  :data:`SWEEP_SCENARIO_COLUMNS`, :data:`SWEEP_STEADY_COLUMNS`, :data:`SWEEP_SCALING_COLUMNS`);
- :func:`show_reproduction` shows published numbers against the models;
- :func:`display_path` and :func:`seed_title` / :func:`seed_short` keep machine paths and
  seed file names out of reports;
- :mod:`~trackerlab.reporting.design_lab_tables` shows the design lab's tables and texts,
  :mod:`~trackerlab.reporting.receiver_queue_tables` the receiver queue report's tables and figures,
  :mod:`~trackerlab.reporting.massive_tables` the massive_delayed report's tables and sentences;
- :func:`page_figure` (sized for the page), :func:`design_color` (one colour per design in
  every report), :func:`legend_outside` and :func:`from_zero`;
- :func:`bytes_per_entry_axes`, :func:`plot_bucket_grid`, :func:`plot_published_points`,
  :func:`container_share` / :func:`plot_container_share` for the time-bucket plots,
  :func:`plot_lines` (series that coincide share one line and one legend entry), and
  :func:`figure_defects` (which ``trackerlab report`` runs on every displayed figure).
"""

from trackerlab.core.paths import display_path
from trackerlab.reporting import (
    delayed_delivery_report,
    design_lab_tables,
    findings,
    massive_tables,
    negative_acks_report,
    overview_report,
    pending_acks_report,
    receiver_queue_tables,
)
from trackerlab.reporting.broker_tables import (
    plot_broker_heap,
    plot_broker_runs,
    show_broker_comparisons,
    show_broker_summary,
)
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
from trackerlab.reporting.markdown import (
    bullets,
    escape_markdown,
    show_conclusions,
    show_markdown,
)
from trackerlab.reporting.plan_tables import (
    plan_headline,
    plan_notes,
    publish_plan,
    show_checks,
    show_choices,
    show_designs,
    show_plan_choices,
)
from trackerlab.reporting.plots import (
    bytes_per_entry_axes,
    coinciding,
    container_share,
    design_color,
    from_zero,
    legend_outside,
    page_figure,
    plot_bucket_grid,
    plot_container_share,
    plot_lines,
    plot_published_points,
)
from trackerlab.reporting.reader import reader_text
from trackerlab.reporting.reproduction import show_reproduction
from trackerlab.reporting.seeds import seed_short, seed_title
from trackerlab.reporting.sweep_text import (
    SWEEP_SCALING_COLUMNS,
    SWEEP_SCENARIO_COLUMNS,
    SWEEP_STEADY_COLUMNS,
    sweep_answer,
    sweep_conclusions,
    sweep_headlines,
    sweep_source_notes,
)
from trackerlab.reporting.tables import Column, reader_header, show_table

__all__ = [
    "SWEEP_SCALING_COLUMNS",
    "SWEEP_SCENARIO_COLUMNS",
    "SWEEP_STEADY_COLUMNS",
    "Column",
    "answer",
    "bullets",
    "bytes_per_entry_axes",
    "coinciding",
    "container_share",
    "delayed_delivery_report",
    "design_color",
    "design_lab_tables",
    "display_path",
    "escape_markdown",
    "figure_defects",
    "findings",
    "format_bytes",
    "format_delay",
    "format_duration",
    "format_number",
    "format_percent",
    "format_ratio",
    "from_zero",
    "headline",
    "legend_outside",
    "massive_tables",
    "negative_acks_report",
    "overview_report",
    "page_figure",
    "pending_acks_report",
    "plan_headline",
    "plan_notes",
    "plot_broker_heap",
    "plot_broker_runs",
    "plot_bucket_grid",
    "plot_container_share",
    "plot_lines",
    "plot_published_points",
    "publish_plan",
    "reader_header",
    "reader_text",
    "receiver_queue_tables",
    "seed_short",
    "seed_title",
    "show_broker_comparisons",
    "show_broker_summary",
    "show_checks",
    "show_choices",
    "show_conclusions",
    "show_designs",
    "show_markdown",
    "show_plan_choices",
    "show_reproduction",
    "show_table",
    "sweep_answer",
    "sweep_conclusions",
    "sweep_headlines",
    "sweep_source_notes",
]
