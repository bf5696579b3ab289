"""Spark experiment engine: the session, sweep grids, message columns, the sweep and its store.

Nothing here imports pyspark at import time; :func:`trackerlab.spark.session.get_session`
starts it on first use.
"""
