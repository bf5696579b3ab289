"""``planner.inputs``: the text a user types, parsed as ``trackerlab plan`` parses it.

Every bad value gives exactly the line the command line prints for it (run in-process here),
in the command line's order: the workload first, then ``--budget``, then ``--max-early``.
"""

import pytest

from trackerlab.commands.cli import main
from trackerlab.core.errors import UsageError, one_line
from trackerlab.planner import PlanWorkload, parse_inputs, plan
from trackerlab.planner.inputs import parse_budget, parse_max_early

SMALL = {"rate": "2k/s", "delayed": "30%", "delay": "uniform:0:10m", "subscriptions": "4"}
FLAGS = ["--rate", "2k/s", "--delayed", "30%", "--delay", "uniform:0:10m", "--subscriptions", "4"]


def cli_error(capsys, *args: str) -> str:
    """The one stderr line of ``trackerlab plan ARGS`` (exit code 2)."""
    assert main(["plan", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err.rstrip("\n")


def form_error(values, budget=None, max_early=None) -> str:
    with pytest.raises(UsageError) as caught:
        parse_inputs(values, budget, max_early)
    return one_line(caught.value)


@pytest.mark.parametrize(
    ("values", "budget", "max_early", "flags"),
    [
        ({**SMALL, "rate": "0/s"}, None, None, ["--rate", "0/s"]),
        ({**SMALL, "rate": "3600"}, None, None, ["--rate", "3600"]),
        ({**SMALL, "partitions": "0"}, None, None, ["--partitions", "0"]),
        ({**SMALL, "topics": "lots"}, None, None, ["--topics", "lots"]),
        ({**SMALL, "nack_precision_bits": "41"}, None, None, ["--nack-precision-bits", "41"]),
        ({**SMALL, "pulsar_version": "9.9"}, None, None, ["--pulsar-version", "9.9"]),
        (SMALL, "12 parsecs", None, ["--budget", "12 parsecs"]),
        (SMALL, "0MiB", None, ["--budget", "0MiB"]),
        (SMALL, None, "-1s", ["--max-early", "-1s"]),
        (SMALL, None, "soon", ["--max-early", "soon"]),
        # two bad values: the first in the command line's order wins, wherever it was typed
        (
            {"tick": "0ms", **SMALL, "rate": "0/s"},
            "12 parsecs",
            None,
            ["--rate", "0/s", "--tick", "0ms", "--budget", "12 parsecs"],
        ),
    ],
)
def test_a_bad_value_is_the_command_lines_line(capsys, values, budget, max_early, flags):
    expected = cli_error(capsys, *FLAGS, *flags)
    assert form_error(values, budget, max_early) == expected
    assert expected.startswith("trackerlab: ") and "ValueError" not in expected


def test_empty_values_are_flags_left_out():
    inputs = parse_inputs({**SMALL, "delay": "uniform:0:10m", "tick": "", "nacked": " "}, "", "")
    assert inputs.budget_bytes is None and inputs.max_early_ms is None
    assert "tick" in inputs.workload.assumed
    assert inputs.workload.values["nacked"] == 0
    assert parse_budget(None) is None and parse_max_early(None) is None
    with pytest.raises(UsageError, match="--max-early"):  # '' is no duration (issue 31)
        parse_max_early("")


def test_inputs_plan_is_the_planners_plan():
    inputs = parse_inputs({**SMALL, "partitions": 4, "topics": 10}, "64MiB", None)
    assert inputs.budget_bytes == 64 << 20
    direct = plan(
        PlanWorkload.parse({**SMALL, "partitions": "4", "topics": "10"}), budget_bytes=64 << 20
    )
    got = inputs.plan()
    assert [r.as_dict() for r in got.rows] == [r.as_dict() for r in direct.rows]
    assert [c.value for c in got.choices] == [c.value for c in direct.choices]
