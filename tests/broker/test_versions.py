"""Which releases run as a broker, and the one line for those that do not."""

from __future__ import annotations

import pytest

from trackerlab.broker import versions
from trackerlab.core.errors import UsageError
from trackerlab.jvmcheck.pulsar.lines import BUILDS


def test_default_is_the_newest_runnable_release():
    assert versions.DEFAULT_VERSION == "4.2.4"
    assert versions.select_release(None).version == "4.2.4"
    assert versions.select_release(" 4.2.4 ").version == "4.2.4"


def test_a_line_gives_its_newest_runnable_build():
    assert versions.select_release("4.0").version == "4.0.8"
    assert versions.select_release("4.0.1").version == "4.0.1"
    assert versions.select_release("2.11").version == "2.11.0"


def test_runnable_releases_are_broker_builds():
    brokers = {b.version for b in BUILDS if not b.client_only}
    assert {r.version for r in versions.RELEASES} == brokers - {"2.10.5", "3.3.6"}


def test_4_0_8_takes_the_opentelemetry_jar_of_4_0_1():
    props = versions.select_release("4.0.8").maven_properties()
    assert props == {"pulsar.version": "4.0.8", "pulsar.opentelemetry.version": "4.0.1"}
    assert versions.select_release("4.2.4").maven_properties() == {"pulsar.version": "4.2.4"}


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("4.1", "serves no pulsar-broker 4.1.x (the line is blocked)"),
        ("4.1.3", "serves no pulsar-broker 4.1.x (the line is blocked)"),
        ("3.3.6", "pulsar-opentelemetry 3.3.x"),
        ("2.10", "ZooKeeper"),
        ("9.9", "unknown --pulsar-version '9.9'"),
        ("latest", "unknown --pulsar-version 'latest'"),
    ],
)
def test_what_does_not_run_is_one_line(text, needle):
    with pytest.raises(UsageError) as err:
        versions.select_release(text)
    message = str(err.value)
    assert needle in message and "\n" not in message
    assert "runnable: 2.11.0, 3.0.7, 4.0.1, 4.0.8, 4.2.4" in message
