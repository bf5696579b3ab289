"""Report pipeline: profiles, papermill execution, HTML export, atomic publishing, index.

Notebooks call :func:`trackerlab.reporting.headline.headline` to publish the figures that
``reports/index.html`` shows next to each report.
"""
