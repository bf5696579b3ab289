"""A sweep on a real Spark standalone cluster (master + one worker on 127.0.0.1).

One test, one cluster, in order (each step needs the state the previous one left):

1. the master alone: the sweep stops with one line ("no executor registered"), writing
   nothing (replaces the fake-session test of executor waiting);
2. a worker joins: the executors import the ``trackerlab`` package the session shipped
   (replaces the fake-session test of package shipping);
3. ``spark-submit lib/trackerlab/commands/spark_submit.py --master spark://...``: the result columns
   equal the embedded ``local[2]`` run's;
4. ``trackerlab sweep --master spark://...`` with the worker killed (SIGKILL, executors too)
   in the middle: one line, the finished points kept;
5. a new worker, the same command again: it resumes and ends with the embedded result.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.conftest import REPO, assert_one_line_error, run_cli, run_cli_until
from tests.spark.cluster import Cluster, cluster_env, spark_home
from tests.spark.results import assert_same_results
from trackerlab.core.java_runtime import JavaMissing, require_java
from trackerlab.spark.grid import load_grid
from trackerlab.spark.store import read_sweep
from trackerlab.spark.sweep_engine import run_sweep

pytestmark = [pytest.mark.spark, pytest.mark.slow]

GRID = """\
root_seed: 16
messages: 4096
settings: {wave_messages: 4096}
blocks:
  - name: nack
    rate_per_ms: [1, 4]
    trim_bits: 8
    delay: uniform:0:2s
  - name: delayed
    rate_per_s: 2000
    tick_ms: 1s
    delay: uniform:0:1h
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    try:
        require_java()
    except JavaMissing as exc:
        pytest.skip(f"no Java: a Spark cluster cannot start here ({exc})")
    folder = tmp_path_factory.mktemp("cluster")
    c = Cluster(folder, cluster_env(folder))
    try:
        c.start_master()
        yield c
    finally:
        c.stop()


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", **extra}


def test_cluster_sweeps_equal_the_embedded_run_and_survive_a_dead_worker(cluster, spark, tmp_path):
    grid_file = tmp_path / "g.yaml"
    grid_file.write_text(GRID)
    embedded = tmp_path / "embedded"
    run_sweep(load_grid(grid_file), embedded, spark=spark, log=lambda m: None)
    want = read_sweep(embedded)

    # 1. no worker: one line, nothing written
    lonely = tmp_path / "lonely"
    res = run_cli(
        "sweep",
        "--grid",
        str(grid_file),
        "--out",
        str(lonely),
        "--master",
        cluster.url,
        env=_env(TRACKERLAB_EXECUTOR_WAIT_S="5"),
    )
    assert_one_line_error(res, "no executor registered", cluster.url, "nothing was written")
    assert not lonely.exists()

    # 2. a worker: the executors import the package the session shipped
    cluster.start_worker()
    probe = (
        "from trackerlab.spark.session import get_session\n"
        f"s = get_session({cluster.url!r})\n"
        "rdd = s.sparkContext.parallelize([0], 1)\n"
        "print(rdd.map(lambda _: __import__('trackerlab').__file__).collect()[0])\n"
    )
    shipped = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, env=_env(), capture_output=True, text=True
    )
    assert shipped.returncode == 0, shipped.stderr
    assert re.search(r"trackerlab\.zip/trackerlab/__init__\.py$", shipped.stdout.strip())
    cluster.note_executors()

    # 3. spark-submit on the cluster: the embedded result
    submitted = tmp_path / "submitted"
    res = subprocess.run(
        [
            str(spark_home() / "bin" / "spark-submit"),
            "--master",
            cluster.url,
            str(REPO / "lib" / "trackerlab" / "commands" / "spark_submit.py"),
            "--grid",
            str(grid_file),
            "--out",
            str(submitted),
        ],
        cwd=REPO,
        env=_env(PYSPARK_PYTHON=sys.executable, SPARK_HOME=str(spark_home())),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stderr[-3000:]
    frame = read_sweep(submitted)
    assert set(frame.master) == {cluster.url}
    assert_same_results(frame, want)

    # 4. the worker dies mid-sweep: one line, finished points kept
    out = tmp_path / "killed"
    args = ["sweep", "--grid", str(grid_file), "--out", str(out), "--master", cluster.url]

    def kill_worker(_: subprocess.Popen) -> None:
        cluster.note_executors()
        cluster.kill_worker()

    # the run gives up after 5 s without an executor
    res = run_cli_until(args, r"^wave 2/", kill_worker, env=_env(TRACKERLAB_EXECUTOR_LOST_S="5"))
    code, stderr = res.returncode, res.stderr
    last = stderr.strip().splitlines()[-1]
    assert code == 2, stderr
    assert "Traceback" not in stderr and "Exception" not in stderr.replace(last, "")
    assert last.startswith("trackerlab: Spark failed in wave 2/3"), last
    assert "no executor left" in last and "re-run to resume" in last and ".log" in last
    kept = read_sweep(out)
    assert 1 <= kept.point_id.nunique() < 3

    # 5. a new worker: the same command resumes and ends with the embedded result
    cluster.start_worker()
    res = run_cli(*args, env=_env(), timeout=600)
    assert res.returncode == 0, res.stderr
    assert re.search(r"; [12] done already, [12] to compute", res.stderr), res.stderr
    assert_same_results(read_sweep(out), want)
