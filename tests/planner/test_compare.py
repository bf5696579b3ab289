"""``plan --pulsar-version A,B,C``: one table across releases, heap and direct apart."""

from __future__ import annotations

import pytest

from tests.conftest import assert_one_line_error
from trackerlab.core.errors import UsageError
from trackerlab.planner.compare import _bytes_at, compare, parse_versions, table
from trackerlab.planner.memory_plan import plan
from trackerlab.planner.workload import PlanWorkload

GIVEN = {"rate": "20k/s", "delayed": "30%", "delay": "uniform:0:10m", "nacked": "2%"}


def test_each_column_is_the_release_s_own_plan():
    c = compare(GIVEN, ["4.0.5", "4.0.7"])
    for version, p in zip(["4.0.5", "4.0.7"], c.plans, strict=True):
        alone = plan(PlanWorkload.parse({**GIVEN, "pulsar_version": version}))
        own = {r.tracker: r for r in alone.rows if r.default}
        for r in p.rows:
            if r.default:
                assert r.per_broker == own[r.tracker].per_broker
    text = table(c)
    # 4.0.6 went back to the triple heap (#23950): the index moves from heap to direct
    assert "delayed index design: time-buckets -> triple-heap" in text
    delayed = [next(r for r in p.rows if r.default and r.tracker.startswith("delayed"))
               for p in c.plans]  # fmt: skip
    heap_a, direct_a = _bytes_at(delayed[0], 1)
    heap_b, direct_b = _bytes_at(delayed[1], 1)
    assert direct_a == 0 and heap_a > 0
    assert direct_b > 30 * 1024**2 and heap_b < 1024
    assert "broker direct (-XX:MaxDirectMemorySize)" in text


def test_the_cli_prints_one_table(cli):
    result = cli("plan", "--rate", "1k/s", "--nacked", "2%", "--pulsar-version", "3.3,4.2")
    assert result.returncode == 0, result.stderr
    assert "What changes:" in result.stdout
    assert "nack tracker design: nack-pair-map -> nack-time-buckets" in result.stdout


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("4.0.5,4.x", "'4.x'"),
        ("4.0.5,", "separated by commas"),
        ("4.0.5,4.0.5", "listed twice"),
        (",".join(["4.2"] * 9), "at most 8"),
    ],
)
def test_bad_version_lists(text, needle):
    with pytest.raises(UsageError, match="--pulsar-version") as err:
        parse_versions(text)
    assert needle in str(err.value)


def test_an_unknown_member_is_one_line(cli):
    result = cli("plan", "--rate", "1k/s", "--pulsar-version", "4.0.7,9.9")
    assert_one_line_error(result, "--pulsar-version", "'9.9'")
    result = cli("plan", "--rate", "1k/s", "--pulsar-version", "4.0.7,4.2", "--budget", "1GiB")
    assert_one_line_error(result, "--budget")
