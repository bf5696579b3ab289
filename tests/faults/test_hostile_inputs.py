"""Issue 31's input and message faults, one class after another: crashes, silent acceptance
and wrong answers, poor messages and exit codes, locales, strict JSON, Ctrl-C.

Each case failed on the tree before issue 31 (a traceback, exit 0 or 1, a Java field named,
``NaN`` printed...). Most run in-process through ``trackerlab.commands.cli.main`` (what the console
script calls); the locale and Ctrl-C cases run a subprocess, as a user's shell does.
``tests/faults/hostile_round.py`` runs the same classes over every command and flag.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import REPO, run_cli
from trackerlab.commands.cli import main
from trackerlab.core.errors import UsageError

BIG = "1" * 5000


def one_line(capsys, *args: str) -> str:
    """Run the CLI in-process: exit 2 and one ``trackerlab:`` line on stderr, returned."""
    got = main(list(args))
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert got == 2, err
    assert len(err) == 1 and err[0].startswith("trackerlab: "), err
    return err[0]


def answer(capsys, *args: str) -> str:
    """Run the CLI in-process: exit 0; its stdout."""
    got = main(list(args))
    out, err = capsys.readouterr()
    assert got == 0, err
    return out


def strict(text: str):
    """``json.loads`` that refuses NaN and Infinity, as RFC 8259 does."""

    def refuse(constant: str):
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


# ----------------------------------------------------------------------------- crashes


def test_a_5000_digit_integer_in_a_workload_file_is_one_line(capsys, tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text(f"rate: 1k/s\npartitions: {BIG}\n")
    line = one_line(capsys, "plan", "--workload", str(path))
    assert "w.yaml:2: refused: an integer of 5000 digits (at most 100)" in line


def test_a_5000_digit_notebook_parameter_is_one_short_line(capsys, tmp_path):
    line = one_line(capsys, "report", "--out", str(tmp_path / "r"), "-p", f"subscriptions={BIG}")
    assert "an integer of 5000 digits" in line and len(line) < 300


@pytest.mark.parametrize("flag", ["--partitions", "--seed", "--rate", "--tick"])
def test_5000_digits_on_a_flag_echo_a_short_value(capsys, flag):
    value = BIG + ("/s" if flag == "--rate" else "")
    line = one_line(capsys, "plan", "--rate", "1k/s", flag, value)
    assert flag in line and "(5,00" in line and len(line) < 300, line


def test_the_planner_at_2_to_the_24_entries_per_ledger_answers(capsys):
    out = answer(
        capsys, "plan", "--rate", "20k/s", "--delayed", "100%", "--delay", "uniform:0:1h",
        "--entries-per-ledger", str(1 << 24),
    )  # fmt: skip
    assert "delayed-delivery index" in out


def test_a_python_error_in_a_spark_task_is_its_own_line():
    from trackerlab.spark.session import spark_action

    # what pyspark's PythonException prints: 80 lines of worker traceback, then the error
    text = "An exception was thrown from the Python worker.\n" + "  File x\n" * 80
    text += "trackerlab.core.errors.UsageError: --rate: the rate must be > 0, got '0/s'\n"
    with pytest.raises(UsageError) as caught, spark_action("plan --exact"):
        raise RuntimeError(text)
    assert str(caught.value) == "--rate: the rate must be > 0, got '0/s'"


def test_any_other_spark_failure_is_one_line_naming_the_step_and_the_log():
    from trackerlab.spark.session import spark_action

    with pytest.raises(UsageError) as caught, spark_action("plan --exact"):
        raise RuntimeError("Py4JJavaError: o42.collect\njava.lang.OutOfMemoryError\n\tat x")
    line = str(caught.value)
    assert line.startswith("Spark failed in plan --exact (Py4JJavaError: o42.collect)")
    assert "details in " in line and "\n" not in line


# ------------------------------------------------------------ silent acceptance, wrong answers


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--max-early", ""], "--max-early: cannot read duration ''"),
        # 4.2.4 is the newest 4.2 patch in apache/pulsar-site's release notes
        (["--pulsar-version", "4.2.999"], "the 4.2.x line's newest patch is 4.2.4"),
        (["--pulsar-version", "4.2.5"], "no such release"),
        (["--pulsar-version", "\uff14.\uff11"], "unknown --pulsar-version '\uff14.\uff11'"),
        (["--partitions", "\uff14"], "--partitions"),
        (["--nacked", "1%", "--max-early", "1\uff10ms"], "--max-early: cannot read duration"),
    ],
)
def test_values_once_taken_are_refused(capsys, args, expected):
    assert expected in one_line(capsys, "plan", "--rate", "1k/s", *args)


def test_the_newest_patch_still_plans(capsys):
    assert "4.2.4" in answer(capsys, "plan", "--rate", "1k/s", "--pulsar-version", "4.2.4")


def test_a_minimum_rollover_above_the_maximum_wins_as_in_pulsar():
    """ManagedLedgerImpl.currentLedgerIsFull (v4.2.4): past the maximum age a ledger is full,
    but with a minimum set it switches only once older than the minimum. At 1 entry/ms a
    5 h minimum holds 5 h x 3,600,000 ms/h = 18,000,000 entries (+1: the one that switches),
    whatever the 1 h maximum; it was cut at 1 h (3,600,001) before. Without a minimum the
    50,000-entry quota (managedLedgerMaxEntriesPerLedger) comes first."""
    from trackerlab.planner.workload import PlanWorkload

    def epl(**values):
        return PlanWorkload.parse({"rate": "1/ms", **values}).entries_per_ledger

    assert epl(ledger_min_rollover="5h", ledger_max_rollover="1h") == 18_000_001
    assert epl(ledger_min_rollover="5h", ledger_max_rollover="5h") == 18_000_001
    assert epl(ledger_min_rollover="0", ledger_max_rollover="1h") == 50_000


def test_jvm_check_only_empty_is_refused_not_every_case(capsys):
    assert "--only needs case names" in one_line(capsys, "jvm-check", "--only", "")
    assert "--only needs case names" in one_line(capsys, "jvm-check", "--only", ",", "--list")


@pytest.mark.parametrize("text", [":x=1", ":=1", "capacity_planner:=1", "=1"])
def test_a_parameter_without_a_notebook_or_a_name_is_refused(capsys, tmp_path, text):
    line = one_line(capsys, "report", "--out", str(tmp_path / "r"), "-p", text)
    assert "-p expects [NOTEBOOK:]NAME=VALUE" in line


def test_max_early_10ms_picks_3_bits_the_lists_start_at_1ms(capsys):
    """3 precision bits: buckets of 2^3 = 8 ms, early by at most 2^3 - 1 = 7 ms <= 10 ms."""
    out = answer(capsys, "plan", "--rate", "1k/s", "--nacked", "1%", "--max-early", "10ms")
    assert "up to 7ms early" in out
    assert "      0 bits       1ms" in out and "3 bits       8ms       7ms" in out
    out = answer(
        capsys, "plan", "--rate", "1k/s", "--delayed", "10%", "--delay", "uniform:0:1h",
        "--max-early", "10ms",
    )  # fmt: skip
    assert "         1ms       1ms" in out  # the tick list starts at 1 ms, not 100 ms


def test_early_delivery_is_in_human_units_and_bounded_by_the_delay(capsys):
    """A 1 d tick cannot hand a 1 h delayed message out more than 1 h early (it was not
    published before): 60m, not 153508863ms."""
    out = answer(capsys, "plan", "--rate", "1/s", "--tick", "1d", "--delayed", "100%",
                 "--delay", "fixed:1h")  # fmt: skip
    assert "delivered up to 60m early" in out and "153508863" not in out


def test_pending_acks_of_a_slow_topic_say_why_and_the_horizon_bounds_them(capsys):
    """At one message a day the peak's full receiver queue (1000 messages) is a backlog of
    1000 days, one or two entries per ledger (a ledger rolls over after 4 h): the row says
    so; a 2-day --horizon leaves a backlog of 2 entries."""
    out = answer(capsys, "plan", "--rate", "1/d")
    row = next(line for line in out.splitlines() if "pending-acks-rb-pairs" in line)
    assert "backlog 1,000d old: 1,000 entries" in row and "ManagedLedgerImpl.java" in row
    out = answer(capsys, "plan", "--rate", "1/d", "--horizon", "2d")
    row = next(line for line in out.splitlines() if "pending-acks-rb-pairs" in line)
    assert "2 entries over 2 ledgers" in row


# ----------------------------------------------------------------- messages and exit codes


@pytest.mark.parametrize(
    ("param", "expected"),
    [
        ("capacity_planner:rate=-5k/s", "parameter capacity_planner.rate: the rate must be > 0"),
        ("receiver_queue:client=rust", "receiver_queue.client 'rust'; choose one of: go, java"),
        ("sensitivity_ids=[N99]", "receiver_queue.sensitivity_ids[0] 'N99'; choose one of: N46"),
        ("massive_delayed:partition_by=WEEK", "choose one of: HOUR, DAY, MONTH, YEAR"),
        ("capacity_planner:budget=12 parsecs", "capacity_planner.budget: cannot read a size"),
        ("delay=fixed:1x", "parameter "),
    ],
)
def test_unit_valued_notebook_parameters_are_checked_before_any_notebook(
    capsys, tmp_path, param, expected
):
    out = tmp_path / "r"
    assert expected in one_line(capsys, "report", "--out", str(out), "-p", param)
    assert not out.exists()  # refused before anything ran


def test_size_delayed_bucket_says_what_is_wrong(capsys):
    line = one_line(capsys, "size", "delayed-bucket")
    assert "--messages 100,000: too many for pip195-buckets" in line
    assert "give --messages below 50,000" in line


def test_messages_name_the_flag_not_a_java_field(capsys):
    line = one_line(capsys, "simulate", "delayed", "--partition-by", "WEEK")
    assert "--partition-by" in line and "PartitionBy" not in line
    line = one_line(capsys, "simulate", "delayed", "--max-delay", "100000d",
                    "--partition-by", "HOUR")  # fmt: skip
    assert "--partition-by" in line and "--max-delay" in line and "PartitionBy" not in line


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["simulate", "delayed", "--days", "-1"], "--days must be a number > 0"),
        (["simulate", "delayed", "--days", "1kg"], "--days: cannot read duration '1kg'"),
        (["simulate", "delayed", "--step-s", "nan"], "--step-s: cannot read duration 'nan'"),
        (["simulate", "receiver-queue", "--rate", "1k/s", "--duration-s", "1e999"],
         "--duration-s: duration '1e999' is longer than 1000 years"),
    ],
)  # fmt: skip
def test_duration_flags_take_units_and_refuse_the_rest(capsys, args, expected):
    assert expected in one_line(capsys, *args)


def test_days_with_a_unit_is_the_same_run_as_a_bare_number():
    from trackerlab.workloads.units import duration_in

    assert duration_in("d", "--days")("12h") == 0.5 == duration_in("d", "--days")("0.5")
    assert duration_in("s", "--step-s")("1m") == 60.0 == duration_in("s", "--step-s")("60")


# ---------------------------------------------------------------------------- locales


@pytest.mark.parametrize(
    "env", [{"PYTHONIOENCODING": "ascii"}, {"LC_ALL": "C", "LANG": "C"}], ids=str
)
def test_output_is_encodable_under_any_locale(env):
    # designs prints "2.10.0\u20132.10.1"; the error line echoes a full-width digit
    result = run_cli("designs", env={**os.environ, **env}, timeout=120)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    result = run_cli("plan", "--rate", "\uff14/s", env={**os.environ, **env}, timeout=120)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr


# ------------------------------------------------------------------------- strict JSON


def test_plan_json_is_strict_json(capsys):
    """An idle tracker has no bytes per entry: null, never NaN or Infinity."""
    doc = strict(answer(capsys, "plan", "--rate", "1/s", "--json"))
    idle = [r for r in doc["rows"] if r["entries"] == 0]
    assert idle and all(r["bytes_per_entry"] is None for r in idle)


def test_the_one_encoder_writes_null_for_non_finite_floats():
    import numpy as np

    from trackerlab.core.strict_json import dumps

    text = dumps({"a": float("nan"), "b": [float("inf"), np.float64("-inf"), 1.5]})
    assert strict(text) == {"a": None, "b": [None, None, 1.5]}


# ----------------------------------------------------------------------------- Ctrl-C


def test_ctrl_c_inside_a_spark_call_is_an_interrupt_not_a_spark_failure():
    """py4j turns a SIGINT that lands in its socket read into a broken call ("Answer from
    Java side is empty"): the step must still end as an interrupt (exit 130)."""
    from trackerlab.spark.session import spark_action

    with pytest.raises(KeyboardInterrupt), spark_action("wave 1/1"):
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        except KeyboardInterrupt:
            raise RuntimeError("Answer from Java side is empty") from None


def test_ctrl_c_during_a_simulation_exits_130():
    """A year at 10k/s runs for minutes (30 days took 7.3 s on an idle machine: it could end
    before the signal, and exit 0); Ctrl-C after 6 s must find it running."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "trackerlab", "simulate", "delayed", "--days", "365",
         "--rate", "10k/s", "--allow-large"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    time.sleep(6)
    assert proc.poll() is None, "the simulation ended before Ctrl-C: make it longer"
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err.strip() == "trackerlab: interrupted", err
