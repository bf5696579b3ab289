"""A successful ``make report`` prints no ERROR or WARNING line.

End to end under the smoke profile: the Spark sweep first (its JVM used to print
``WARNING: Using incubator modules``), then two notebooks: ``pending_acks`` (whose kernel
used to log ``ERROR | KeyboardInterrupt caught in kernel``) and ``spark_sweeps`` (which reads
the sweep). Every notebook's own log is checked under smoke by ``test_render_all.py``.
"""

import re
import subprocess

import pytest

from tests.conftest import REPO
from trackerlab.core.java_runtime import JavaMissing, require_java

NOISE = re.compile(r"\b(ERROR|WARNING|Warning|Traceback|Exception)\b")


@pytest.mark.slow
@pytest.mark.spark
def test_make_report_prints_no_error_or_warning(tmp_path):
    try:
        require_java()  # make report's own Java check (lib/trackerlab/core/java_runtime.py)
    except JavaMissing as exc:
        pytest.skip(f"Java is missing, and make report stops at its Java check: {exc}")
    out = tmp_path / "reports"
    run = subprocess.run(
        [
            "make",
            "--no-print-directory",
            "-C",
            str(REPO),
            "report",
            "PROFILE=smoke",
            f"ARGS=--only pending_acks spark_sweeps --out {out}",
        ],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    log = run.stdout + run.stderr
    assert run.returncode == 0, log
    assert (out / "pending_acks.html").is_file() and (out / "spark_sweeps.html").is_file()
    assert "sweep smoke:" in log and "[2/2] spark_sweeps ok" in log
    assert [line for line in log.splitlines() if NOISE.search(line)] == [], log
