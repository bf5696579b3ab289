"""``harness_runner.run_java``: the one way a harness or SizeCheck JVM is run (any command)."""

import subprocess
import sys

import pytest

from trackerlab.jvmcheck.pulsar import harness_runner


def test_stdout_returned_stderr_logged_exit_code_kept(tmp_path):
    log = tmp_path / "run.log"
    code = "import sys; print('out'); sys.stderr.write('err'); sys.exit(3)"
    out, returncode = harness_runner.run_java([sys.executable, "-c", code], log, 30)
    assert out.decode().strip() == "out"
    assert returncode == 3
    assert log.read_text() == "err"


def test_a_timeout_stops_the_process_and_propagates(tmp_path):
    code = "import time; time.sleep(30)"
    with pytest.raises(subprocess.TimeoutExpired):
        harness_runner.run_java([sys.executable, "-c", code], tmp_path / "run.log", 0.5)
