"""``trackerlab simulate receiver-queue`` and ``trackerlab bench receiver-queue``."""

import csv

import pytest

from tests.conftest import assert_one_line_error


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["--rate", "0/s"], ["--rate: the rate must be > 0"]),
        (["--rate", "0.5/s"], ["--rate (msg/s) must be a number in 1..1e+07", "0.5"]),
        (["--rate", "20000"], ["--rate: cannot read rate '20000'", "20000/s"]),
        (["--rate", "5/s", "--partitions", "0"], ["--partitions must be an integer in 1..1000"]),
        (["--rate", "5/s", "--queue-size", "0"], ["--queue-size must be an integer in 1.."]),
        (["--rate", "5/s", "--client", "rust"], ["unknown client 'rust'", "go, java"]),
        (["--rate", "abc"], ["--rate: cannot read rate 'abc'"]),
        ([], ["required: --rate"]),
        (["--rate", "5/s", "--one-way-us", "-1"], ["--one-way-us must be a number"]),
        (["--rate", "5/s", "--duration-s", "0"], ["--duration-s must be a number"]),
        (["--rate", "5/s", "--memory-limit", "-1"], ["--memory-limit: cannot read a size"]),
        (["--rate", "5/s", "--memory-limit", "64"], ["--memory-limit: '64' needs a unit"]),
        (["--rate", "5/s", "--limiter", "leaky"], ["unknown limiter 'leaky'"]),
        (["--rate", "5/s", "--app-rate", "0/s"], ["--app-rate: the rate must be > 0"]),
        (["--rate", "5/s", "--tick-latency-us", "-3"], ["--tick-latency-us must be"]),
        (["--rate", "5/s", "--java-drain", "x"], ["unknown --java-drain 'x'"]),
        (
            ["--rate", "5/s", "--subscription-type", "key_shared"],
            ["unknown --subscription-type 'key_shared'", "exclusive, shared"],
        ),
        (
            ["--rate", "5/s", "--batching-max-messages", "0"],
            ["--batching-max-messages must be an integer >= 1, got 0"],
        ),
    ],
)
def test_simulate_bad_input_is_one_line_exit_2(cli, args, needles):
    assert_one_line_error(cli("simulate", "receiver-queue", *args), *needles)


def test_simulate_without_model_and_unwritable_csv(cli, tmp_path):
    assert_one_line_error(cli("simulate"), "choose a model: receiver-queue")
    blocker = tmp_path / "f"
    blocker.write_text("x")
    res = cli("simulate", "receiver-queue", "--rate", "5/s", "--csv", str(blocker / "a.csv"))
    assert_one_line_error(res, "--csv: cannot write")
    assert res.stdout == ""  # nothing ran


def test_simulate_prints_summary_and_writes_csv(cli, tmp_path):
    out = tmp_path / "ts" / "rq.csv"
    res = cli(
        "simulate", "receiver-queue", "--rate", "1/s", "--partitions", "3", "--client", "go",
        "--duration-s", "5", "--csv", str(out),
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    summary = dict(line.split(None, 1) for line in res.stdout.splitlines())
    assert summary["client"] == "go" and summary["partitions"] == "3"
    # the sticky router keeps 1 msg/s on one partition: 2,1,1 in some order
    assert sorted(summary["final_sizes"].split(",")) == ["1", "1", "2"]
    assert summary["tick_latency_us"] == "3000" and summary["stalled"] == "False"
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 51 and rows[-1]["t_s"] == "5.0"
    assert {"size_0", "size_2", "total_size", "queued", "prefetch_bytes"} <= set(rows[0])


def test_simulate_fixed_java_with_a_slow_application(cli):
    res = cli(
        "simulate", "receiver-queue", "--rate", "2k/s", "--client", "java", "--fixed",
        "--queue-size", "10", "--app-rate", "100/s", "--duration-s", "2", "--memory-limit",
        "64MiB",
    )  # fmt: skip
    summary = dict(line.split(None, 1) for line in res.stdout.splitlines())
    assert summary["client"] == "java (fixed)" and summary["final_total_size"] == "10"
    assert summary["memory_limit_bytes"] == str(64 << 20)
    # whole entries: one Flow of 5 permits brings entries of ~20 messages
    assert int(summary["peak_prefetched_messages"]) > 10


def test_bench_runs_a_short_case_beside_the_stored_legacy_ratio(cli):
    res = cli("bench", "receiver-queue", "--duration-s", "1", "--rate", "2k/s")
    assert res.returncode == 0, res.stdout + res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].split()[:3] == ["case", "produced", "consumed"]
    go_fixed = next(line for line in lines if line.startswith("go fixed 1000 x1"))
    assert " 91.0x " in go_fixed  # data/bench/receiver_queue_legacy.json, go fixed 1000 x1
    assert lines[-2].startswith("all cases") and lines[-2].rstrip().endswith("30.3x")
    assert "stored figure from commit 8bcbe45123e2" in lines[-1]
    deprecated = cli("bench", "receiver-queue", "--duration-s", "1", "--no-legacy")
    assert deprecated.returncode == 0 and "--no-legacy is deprecated" in deprecated.stderr
    assert deprecated.stdout.splitlines()[1:-1] != []  # same table, harness only
    assert_one_line_error(cli("bench", "receiver-queue", "--rate", "0/s"), "--rate: the rate")
    assert_one_line_error(cli("bench", "receiver-queue", "--rate", "20000"), "20000/s")


def test_simulate_help_states_the_defaults_the_library_uses(cli):
    from trackerlab.experiments.reproduce.receiver_queue import FITTED_TICK_LATENCY_US
    from trackerlab.models.receiver_queue import OPEN_PARAMETERS

    text = " ".join(cli("simulate", "receiver-queue", "-h").stdout.split())
    assert f"(default {FITTED_TICK_LATENCY_US:g}: the value fitted on N46-N51)" in text
    assert f"default {OPEN_PARAMETERS['one_way_us'][0]:g}, declared" in text


def test_the_csv_is_replaced_only_when_the_run_has_finished(tmp_path, cli):
    """A run checks --csv up front without touching it and replaces it atomically at the end,
    so an interrupted or failed run keeps the user's earlier series; a device is refused."""
    from trackerlab.commands.simulate import _check_csv

    earlier = tmp_path / "series.csv"
    earlier.write_text("earlier\n")
    assert _check_csv(earlier) == earlier and earlier.read_text() == "earlier\n"
    assert list(tmp_path.iterdir()) == [earlier]  # the probe file is gone
    assert_one_line_error(
        cli("simulate", "receiver-queue", "--rate", "1k/s", "--csv", "/dev/null"),
        "--csv: /dev/null is not a regular file",
    )
    r = cli(
        "simulate", "receiver-queue", "--rate", "1k/s", "--duration-s", "1", "--csv", str(earlier)
    )
    assert r.returncode == 0, r.stderr
    assert earlier.read_text().startswith("t_s,total_size,")


def _verdict_run(cli, *extra):
    res = cli(
        "simulate", "receiver-queue", "--rate", "20k/s", "--message-bytes", "1024", "--fixed",
        "--duration-s", "5", *extra,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    return res.stdout.splitlines(), dict(line.split(None, 1) for line in res.stdout.splitlines())


def test_simulate_ends_with_a_verdict_on_memory_limit(cli):
    """The last line: the client's peak in MiB and its share of memoryLimit. With no limit
    set, the share is of the 64 MiB default of the Go (#991) and Java clients
    (memory_limit.DEFAULT_MEMORY_LIMIT_BYTES). Well below it: no WARNING."""
    lines, summary = _verdict_run(cli)
    peak = int(summary["peak_client_bytes"])
    assert 5 << 20 < peak < 64 << 20  # whole entries of ~108 messages overshoot 1000
    assert lines[-1] == (
        f"verdict: peak {peak / 2**20:.2f} MiB prefetched by the client = "
        f"{100 * peak / (64 << 20):.1f}% of memoryLimit 64 MiB "
        "(the Go #991 and Java default; this run set none)"
    )
    assert not any(line.startswith("WARNING") for line in lines)


def test_simulate_warns_when_the_peak_passes_memory_limit(cli):
    """The same run against a 4 MiB limit: the peak is above it, so a WARNING line follows
    the verdict. A fixed queue keeps prefetching, since consumers reserve without waiting."""
    lines, summary = _verdict_run(cli, "--memory-limit", "4MiB")
    peak = int(summary["peak_client_bytes"])
    assert peak > 4 << 20 and summary["memory_limit_bytes"] == str(4 << 20)
    assert lines[-2] == (
        f"verdict: peak {peak / 2**20:.2f} MiB prefetched by the client = "
        f"{100 * peak / (4 << 20):.1f}% of memoryLimit 4 MiB"
    )
    assert lines[-1].startswith(
        f"WARNING: the peak passes memoryLimit by {(peak - (4 << 20)) / 2**20:.2f} MiB: "
        "consumers reserve memory for every message they receive without waiting"
    )


def test_memory_verdict_at_the_edge():
    """Function-level: exactly at the limit is 100% with no WARNING. One byte more warns."""
    from trackerlab.models.receiver_queue.memory_limit import memory_verdict

    assert memory_verdict(64 << 20, 64 << 20) == [
        "verdict: peak 64.00 MiB prefetched by the client = 100.0% of memoryLimit 64 MiB"
    ]
    over = memory_verdict((64 << 20) + 1, None)
    assert len(over) == 2 and over[1].startswith("WARNING: the peak passes memoryLimit by 0.00 MiB")
    assert over[0].endswith("(the Go #991 and Java default; this run set none)")
