"""``trackerlab simulate delayed``: the summary table, the CSV and one-line errors."""

import pytest

from tests.conftest import assert_one_line_error


def test_simulate_delayed_prints_the_summary(cli):
    r = cli(
        "simulate",
        "delayed",
        "--rate",
        "10k/s",
        "--delay",
        "fixed:1d",
        "--days",
        "2",
        "--samples",
        "24",
        "--batch",
        "100",  # the seed's scenario (N12)
    )
    assert r.returncode == 0, r.stderr
    for needle in (
        "triple-heap",
        "time-buckets",
        "pip195-buckets",
        "delay-level-topics",
        "memory peak MiB",
        "416.0",
        "29 partitions by DAY",
        "simulated days per second",
    ):
        assert needle in r.stdout, needle


def test_simulate_delayed_takes_rates_with_units_and_never_batches_by_default(cli):
    r = cli("simulate", "delayed", "--rate", "2k/s", "--days", "0.01", "--samples", "2")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("2,000 msg/s, delay fixed:1d, batch 1 (2,000 entries/s")
    assert_one_line_error(
        cli("simulate", "delayed", "--rate", "2000", "--days", "0.01"),
        "--rate: cannot read rate '2000'",
        "2000/s",
    )


def test_simulate_delayed_profile(cli):
    r = cli(
        "simulate", "delayed", "--profile", "smoke", "--designs", "triple-heap,delay-level-topics"
    )
    assert r.returncode == 0, r.stderr
    assert "triple-heap" in r.stdout and "pip195-buckets" not in r.stdout


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["--max-delay", "0"], ["--max-delay", "> 0"]),
        (["--max-delay=-1d"], ["--max-delay"]),
        (["--partition-by", "WEEK"], ["--partition-by", "HOUR, DAY, MONTH, YEAR"]),
        (["--partition-by", "HOUR", "--max-delay", "500d"], ["10,000"]),
        (["--delay", "uniform:5m"], ["malformed --delay"]),
        (["--delay", "mix:0.5*fixed:1d"], []),
        (["--profile", "nope"], ["profile"]),
        (["--days", "-1"], ["--days"]),
    ],
)
def test_simulate_delayed_bad_input(cli, args, needles):
    r = cli("simulate", "delayed", "--days", "0.01", *args)
    if not needles:  # a valid mixture with one part
        assert r.returncode == 0, r.stderr
        return
    assert_one_line_error(r, *needles)


def test_simulate_without_model(cli):
    assert_one_line_error(cli("simulate"), "choose a model", "delayed")


def test_simulate_delayed_writes_the_series(cli, tmp_path):
    out = tmp_path / "series" / "delayed.csv"
    r = cli(
        "simulate",
        "delayed",
        "--days",
        "0.5",
        "--samples",
        "8",
        "--designs",
        "triple-heap,pip195-buckets",
        "--csv",
        str(out),
    )
    assert r.returncode == 0, r.stderr
    lines = out.read_text().splitlines()
    assert lines[0].startswith("design,time_h,memory_bytes")
    assert len(lines) == 1 + 2 * 8
