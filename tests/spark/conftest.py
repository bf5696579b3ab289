"""One local[2] Spark session per test process, shared by every Spark test."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def spark():
    from trackerlab.errors import UsageError
    from trackerlab.spark.session import get_session

    try:
        session = get_session("local[2]", app_name="trackerlab-tests")
    except UsageError as exc:  # no Java: the Spark tests cannot run here
        pytest.skip(f"no Spark session: {exc}")
    yield session
    session.stop()
