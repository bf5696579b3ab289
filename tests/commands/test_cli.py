"""Bad input to the CLI: one line naming the bad value, exit code 2, no traceback."""

import pytest

from tests.conftest import FIXTURE_NOTEBOOKS, assert_one_line_error


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["report", "--profile", "nope"], ["unknown profile 'nope'", "smoke, default, large"]),
        (["report", "--only", "nope"], ["unknown notebook 'nope'", "overview"]),
        (["report", "-p", "include_pending=3"], ["overview.include_pending", "bool", "3"]),
        (["report", "-p", "no_such=1"], ["no parameter 'no_such'"]),
        (["report", "--bogus"], ["unrecognized arguments: --bogus"]),
        (["reproduce", "--only", "N99"], ["unknown published id 'N99'", "N01..N57"]),
        (["reproduce", "--format", "xml"], ["invalid choice: 'xml'"]),
        (["notebooks", "--profile", "huge"], ["unknown profile 'huge'"]),
        (["nosuchcommand"], ["invalid choice: 'nosuchcommand'"]),
    ],
)
def test_bad_input_is_one_line_exit_2(cli, args, needles):
    assert_one_line_error(cli(*args), *needles)


def test_unwritable_out_folder(cli, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    res = cli("report", "--profile", "smoke", "--out", str(blocker / "reports"))
    assert_one_line_error(res, str(blocker / "reports"), "cannot write", "is not a folder")
    res = cli("report", "--profile", "smoke", "--out", str(blocker))
    assert_one_line_error(res, "not a folder")


def test_wrong_type_in_fixture_profile(cli, tmp_path):
    res = cli(
        "report",
        "--notebooks",
        str(FIXTURE_NOTEBOOKS),
        "--only",
        "ok",
        "-p",
        "n=many",
        "--out",
        str(tmp_path / "r"),
    )
    assert_one_line_error(res, "ok.n must be int", "'many'")
    assert not (tmp_path / "r").exists()  # nothing ran, nothing was written


def test_no_command_prints_help_and_exits_2(cli):
    res = cli()
    assert res.returncode == 2 and "report" in res.stderr


def test_notebooks_lists_parameters(cli):
    res = cli("notebooks", "--notebooks", str(FIXTURE_NOTEBOOKS), "--profile", "smoke")
    assert res.returncode == 0, res.stderr
    assert "ok  (" in res.stdout
    assert "    n = 3    [smoke: 4]    # how many squares" in res.stdout
    assert "    seconds = 60" in res.stdout


def test_python_dash_m_and_console_script_agree(cli):
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    script = Path(sys.executable).with_name("trackerlab")
    exe = str(script) if script.exists() else shutil.which("trackerlab")
    assert exe, "the trackerlab console script is installed with the package"
    direct = subprocess.run(
        [exe, "reproduce", "--only", "N01", "--format", "csv"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    module = cli("reproduce", "--only", "N01", "--format", "csv")
    assert direct.returncode == module.returncode == 0
    assert direct.stdout == module.stdout
    assert module.stdout.splitlines()[0].startswith("id,system,parameters,published")


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["size", "nope"], ["unknown design 'nope'"]),
        (["size", "heap"], ["unknown design 'heap'; did you mean 'triple-heap'?"]),
        (["size", "nack-buckets"], ["did you mean 'nack-time-buckets'?"]),
        (["size", "delay-level-topics"], ["design 'delay-level-topics' cannot be used here"]),
        (
            ["size", "pip195-buckets"],
            [
                "--messages 100,000: too many for pip195-buckets",
                "seals at entry 50,000",
                "give --messages below 50,000",
            ],
        ),
        (["size"], ["size needs a DESIGN"]),
        (
            ["size", "x", "--messages=-5"],
            ["--messages must be a whole number in 0..100,000,000,000"],
        ),
        (
            ["size", "x", "--nack-precision-bits", "63"],
            ["--nack-precision-bits must be in 0..62, got 63"],
        ),
        (["size", "x", "--rate", "0/s"], ["--rate: the rate must be > 0"]),
        (["size", "x", "--rate", "fast"], ["--rate: cannot read rate 'fast'"]),
        (["size", "x", "--rate", "8"], ["--rate", "e.g. 8/s"]),
        (["size", "x", "--delay", "fixed:60000"], ["'60000' needs a unit"]),
        (["size", "x", "--layout", "tiny"], ["unknown --layout 'tiny'", "compressed"]),
    ],
)
def test_size_bad_input(cli, args, needles):
    assert_one_line_error(cli(*args), *needles)


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (
            ["--entries-per-ledger", "0"],
            ["--entries-per-ledger must be in 1..1,073,741,824, got 0"],
        ),
        (["--rate=-2/s"], ["--rate: the rate must be > 0, got '-2/s'"]),
        (["--tick", "0"], ["--tick must be a whole number of ms in 1ms..1d"]),
        (["--nack-precision-bits=-1"], ["--nack-precision-bits must be a whole number"]),
        (
            ["--delay", "zipf:2"],
            ["unknown delay distribution 'zipf'", "fixed, uniform, exponential"],
        ),
        (["--delay", "uniform:9"], ["malformed --delay 'uniform:9'"]),
        (["--pattern", "sometimes"], ["unknown nack pattern 'sometimes'", "all, fraction, burst"]),
    ],
)
def test_tracker_workload_bad_input(cli, args, needles):
    assert_one_line_error(cli("size", "nack-time-buckets", "--messages", "10", *args), *needles)


def test_size_nack_time_buckets_prints_three_columns(cli):
    res = cli(
        "size",
        "nack-time-buckets",
        "--messages",
        "100000",
        "--rate",
        "8/ms",
        "--nack-precision-bits",
        "10",
        "--json",
    )
    assert res.returncode == 0, res.stderr
    import json

    row = json.loads(res.stdout)
    assert row["entries"] == 100_000
    assert 1.0 < row["jvm_bytes_per_entry"] < 1.6  # x = 8, y = 10: ~1.2 B/entry
    assert row["theory_bytes_per_entry"] == pytest.approx(1.0)  # PIP-393: 8192 / M
    assert row["python_bytes"] > 0


def test_every_subcommand_help_shows_every_default():
    """Every option that takes a value states its default in ``--help`` (units where they
    apply live in the help text and the parsers)."""
    from trackerlab.commands.cli import build_parser, parsers, shows_default

    checked = 0
    for parser in parsers(build_parser()):
        text = " ".join(parser.format_help().split())
        for action in parser._actions:
            if shows_default(action):
                help_text = " ".join((action.help or "").split()) % {"default": action.default}
                assert "default" in help_text, (parser.prog, action.option_strings)
                checked += 1
        assert "default" in text or not any(map(shows_default, parser._actions)), parser.prog
    assert checked > 100
