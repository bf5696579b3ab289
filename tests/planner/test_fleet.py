"""``trackerlab plan --topics FILE``: a fleet of topics, totals per broker and class, the
long tail, interpolation checked against direct plans, Spark, Parquet, bad files."""

from __future__ import annotations

import pytest

from tests.conftest import assert_one_line_error
from trackerlab.bench.fleet_bench import write_fleet
from trackerlab.core.errors import UsageError
from trackerlab.planner import fleet as fl
from trackerlab.planner.memory_plan import plan
from trackerlab.planner.workload import PlanWorkload

YAML = """\
- name: orders
  class: shop
  rate: 20k/s
  delayed: 30%
  delay: uniform:0:10m
  nacked: 2%
- name: audit
  class: shop
  rate: 50/s
  topics: 2000
- name: events
  class: iot
  rate: 3k/s
  batch: 100
  nacked: 1%
"""


@pytest.fixture
def small(tmp_path):
    path = tmp_path / "fleet.yaml"
    path.write_text(YAML)
    return path


def _own(p):
    return {r.tracker: r for r in p.rows if r.default}


def test_totals_are_the_sum_of_each_topic_s_plan(small):
    result = fl.plan_fleet(fl.read_fleet(small), brokers=4)
    assert result.held_out_deviation is None and result.plans == 3
    df = fl.frame(result)
    expect_broker = 0.0
    for raw in (
        {"rate": "20k/s", "delayed": "30%", "delay": "uniform:0:10m", "nacked": "2%"},
        {"rate": "50/s", "topics": "2000"},
        {"rate": "3k/s", "batch": "100", "nacked": "1%"},
    ):
        own = _own(plan(PlanWorkload.parse(raw)))
        expect_broker += sum(r.per_broker for r in own.values() if r.side == "broker")
    got = df[df.side == "broker"][["heap_bytes", "direct_bytes"]].sum().sum()
    assert got == pytest.approx(expect_broker, rel=1e-9)
    text = fl.table(result)
    assert "Per broker (the fleet's broker-side memory / 4" in text
    assert f"{2_002:,} topics in 3 rows" in text
    # per class: shop holds orders + 2,000 audit topics
    assert "  shop " in text and "  iot " in text


def test_flags_are_every_topic_s_defaults(small):
    topics = fl.read_fleet(small, {"subscriptions": "3", "rate": "1/s"})
    assert all(t.workload.values["subscriptions"] == 3 for t in topics)
    assert topics[0].workload.values["rate"] == pytest.approx(20.0)  # the row wins


def test_a_long_tail_fleet_is_interpolated_within_its_stated_deviation(tmp_path):
    """A Zipf fleet of 300 topics: the groups have more distinct rates than GRID_ABOVE, so
    they are planned at 2^(1/16) steps and interpolated. Memory steps by a few percent in the
    rate (ART nodes, capacities), so one topic may be off by a step: within 5% each, and the
    sum of the checked topics within 1%; the output states what it measured."""
    path = tmp_path / "zipf.csv"
    write_fleet(path, 300)
    result = fl.plan_fleet(fl.read_fleet(path), brokers=2, seed=3)
    assert result.interpolated_groups == 3
    assert result.held_out_topics == fl.HELD_OUT
    assert result.held_out_deviation["broker"] < 0.05
    assert result.held_out_deviation["broker_sum"] < 0.01
    # an independent check: three topics of the fleet planned on their own
    df = fl.frame(result)
    for name in ("t7", "t41", "t299"):
        row = next(t for t in result.topics if t.name == name)
        own = _own(plan(row.workload))
        want = sum(r.per_topic for r in own.values() if r.side == "broker")
        got = df[(df.topic == name) & (df.side == "broker")][["heap_bytes", "direct_bytes"]]
        assert got.sum().sum() == pytest.approx(want, rel=0.05)
    assert "the long tail dominates" in fl.table(result)
    assert "planned directly differ from it by at most" in fl.table(result)
    assert "in sum" in fl.table(result)


def test_parquet_keeps_provenance(small, tmp_path):
    result = fl.plan_fleet(fl.read_fleet(small))
    out = fl.write_parquet(result, tmp_path / "fleet.parquet", small)
    prov = fl.read_provenance(out)
    assert prov["fleet_file"] == str(small) and len(prov["fleet_sha256"]) == 64
    assert prov["plans"] == 3 and "pyroaring" in prov["versions"]
    import pandas as pd

    assert len(pd.read_parquet(out)) == len(fl.frame(result))
    with pytest.raises(UsageError, match="--out"):
        fl.write_parquet(result, tmp_path / "fleet.csv", small)


def test_spark_gives_the_same_fleet(small):
    local = fl.plan_fleet(fl.read_fleet(small))
    spark = fl.plan_fleet(fl.read_fleet(small), master="local[2]")
    assert spark.engine.startswith("Spark local[2]")
    assert fl.frame(spark).equals(fl.frame(local))


def test_the_cli(cli, small, tmp_path):
    out = tmp_path / "f.parquet"
    result = cli("plan", "--topics", str(small), "--brokers", "2", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "Per broker" in result.stdout and out.exists()
    csv = cli("plan", "--topics", str(small), "--csv")
    assert csv.stdout.splitlines()[0].startswith("topic,class,rate_per_s")


@pytest.mark.parametrize(
    ("text", "suffix", "needles"),
    [
        ("name,rate\na,1k/s,3\n", ".csv", ("row 2 has 3 fields",)),
        ("name,rate,colour\na,1k/s,red\n", ".csv", ("unknown key 'colour'",)),
        ("name,rate\na,0/s\n", ".csv", ("topic a", "rate")),
        ("- rate: 1k/s\n  partitons: 3\n", ".yaml", ("unknown key 'partitons'",)),
        ("rate: 1k/s\n", ".yaml", ("a fleet file is a list of topics",)),
        ("- [1, 2]\n", ".yaml", ("topic 1 is not a mapping",)),
        ("name,rate\n", ".csv", ("lists no topics",)),
        ("name,rate\na,1k/s\na,2k/s\n", ".csv", ("'a' is listed twice",)),
        ("- name: a\n  rate: [1\n", ".yaml", ("not valid YAML",)),
    ],
)
def test_bad_fleet_files_are_one_line(cli, tmp_path, text, suffix, needles):
    path = tmp_path / f"bad{suffix}"
    path.write_text(text)
    assert_one_line_error(cli("plan", "--topics", str(path)), *needles)


def test_bad_fleet_options_are_one_line(cli, small):
    assert_one_line_error(cli("plan", "--topics", str(small), "--brokers", "0"), "--brokers")
    assert_one_line_error(cli("plan", "--topics", str(small), "--exact"), "--exact")
    assert_one_line_error(cli("plan", "--rate", "1k/s", "--brokers", "3"), "--brokers")
    assert_one_line_error(cli("plan", "--topics", "missing.csv"), "missing.csv")


def test_one_group_spelled_two_ways(tmp_path):
    """Rates "30%" and "0.3" are one group: planned once, interpolated, and checked (a topic
    spelled unlike the group's first member once raised KeyError in the check)."""
    rows = ["name,rate,delayed,delay"]
    for k in range(1, 41):
        rows.append(f"t{k},{20000 / k:.6g}/s,{'30%' if k % 2 else '0.3'},uniform:0:1m")
    path = tmp_path / "mixed.csv"
    path.write_text("\n".join(rows) + "\n")
    result = fl.plan_fleet(fl.read_fleet(path))
    assert result.interpolated_groups == 1
    assert result.held_out_topics == fl.HELD_OUT
