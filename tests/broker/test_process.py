"""A real Pulsar standalone started, checked and stopped by PID (the CI release, 4.2.4).

Each test starts a broker (about 20 s on two cores). They skip only when Java, ``mvn`` or
Maven Central is missing, with the one line that says which; a broker that does not start,
listens off loopback or outlives its stop is a failure.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import REPO, assert_one_line_error, run_cli
from trackerlab import broker
from trackerlab.broker import process
from trackerlab.broker.sockets import group_pids, listening_sockets

VERSION = broker.DEFAULT_VERSION


@pytest.fixture(scope="module")
def available():
    """The CI release's class path; skips, naming what is missing, without Java or Maven."""
    try:
        return broker.prepare(VERSION)
    except broker.BrokerUnavailable as exc:
        pytest.skip(str(exc))


def _get(url: str):
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=10) as reply:
        return json.loads(reply.read())


def _ss_listening(pid: int) -> set[str]:
    """``ss -ltnp``'s local addresses for ``pid`` (a second reading beside /proc)."""
    out = subprocess.run(["ss", "-Hltnp"], capture_output=True, text=True, check=True).stdout
    return {line.split()[3] for line in out.splitlines() if f"pid={pid}," in line}


def _gone(b: broker.Broker) -> bool:
    return process._proc_start(b.pid) is None and group_pids(b.pid) == []


def test_start_status_stop_on_loopback(tmp_path, available):
    run = tmp_path / "run"
    started = run_cli(
        "broker", "start", "--pulsar-version", VERSION, "--dir", str(run), timeout=400
    )
    assert started.returncode == 0, started.stderr
    b = broker.load(run)
    try:
        assert re.search(
            rf"Pulsar {VERSION} standalone ready in \d+\.\d s \(pid {b.pid}\)", started.stdout
        )
        assert b.start_seconds > 0
        assert _get(f"{b.admin_url}/clusters") == ["standalone"]
        assert "public/default" in _get(f"{b.admin_url}/namespaces/public")
        pids = group_pids(b.pid)
        assert b.pid in pids
        listening = listening_sockets(pids)
        assert {b.ports.broker, b.ports.web, b.ports.bookie} <= {s.port for s in listening}
        off_loopback = [str(s) for s in listening if not s.loopback]
        assert off_loopback == [], f"listening off loopback: {off_loopback}"
        if shutil.which("ss"):
            seen = _ss_listening(b.pid)
            assert seen and all(
                a.startswith(("127.0.0.1:", "[::1]:", "[::ffff:127.")) for a in seen
            ), seen
        status = run_cli("broker", "status", "--dir", str(run))
        assert status.returncode == 0, status.stderr
        assert f"running: Pulsar {VERSION}, pid {b.pid}" in status.stdout
        assert f"127.0.0.1:{b.ports.web}" in status.stdout
        # UDP: the internal client's DNS resolver, made on its first connection (none on an
        # idle broker, measured), is on loopback (brokerClient_dnsLookupBindAddress)
        udp = broker.status(b).udp
        assert all(s.loopback for s in udp), [str(s) for s in udp]
        assert re.search(r"^  udp      (nothing|127\.0\.0\.1:\d+)", status.stdout, re.M)
    finally:
        stopped = run_cli("broker", "stop", "--dir", str(run))
    assert stopped.returncode == 0, stopped.stderr
    assert f"stopped Pulsar {VERSION} (pid {b.pid}) by SIGTERM" in stopped.stdout
    assert _gone(b)
    assert not (run / "data").exists() and (run / "broker.log").stat().st_size > 0
    after = run_cli("broker", "status", "--dir", str(run))
    assert after.returncode == 3 and "not running" in after.stdout
    again = run_cli("broker", "stop", "--dir", str(run))
    assert again.returncode == 0 and "not running" in again.stdout


def test_the_context_manager_stops_the_broker_on_ctrl_c(tmp_path, available):
    with pytest.raises(KeyboardInterrupt), broker.running_broker(VERSION, tmp_path / "r") as b:
        assert _get(f"{b.admin_url}/clusters") == ["standalone"]
        assert all(s.loopback for s in broker.status(b).listening)
        raise KeyboardInterrupt
    assert _gone(b)
    assert json.loads((tmp_path / "r" / "run.json").read_text())["stopped_by"] == "SIGTERM"


def test_ctrl_c_while_starting_leaves_no_broker(tmp_path, available):
    """``broker start`` interrupted before the broker is ready stops it and exits 130."""
    run = tmp_path / "interrupted"
    proc = subprocess.Popen(
        [sys.executable, "-m", "trackerlab", "broker", "start", "--dir", str(run)],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while not (run / "run.json").exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert proc.poll() is None, proc.communicate()
    b = broker.load(run)
    assert process._proc_start(b.pid) is not None
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and err.strip() == "trackerlab: interrupted"
    assert _gone(b)
    assert json.loads((run / "run.json").read_text())["state"] == "stopped"


def test_a_broker_that_dies_while_starting_names_its_log(tmp_path, available):
    """A JVM that cannot start (a heap below its initial size) exits at once: one line
    naming the run's log, exit code 1, and nothing left running."""
    run = tmp_path / "dies"
    env = {**os.environ, process.JVM_OPTS_ENV: "-Xmx8m"}
    result = run_cli("broker", "start", "--dir", str(run), timeout=120, env=env)
    assert_one_line_error(result, "exited with code", str(run / "broker.log"), code=1)
    log = (run / "broker.log").read_text()
    assert "heap" in log.lower()
    assert _gone(broker.load(run))


def test_start_refuses_a_folder_that_is_not_empty(tmp_path):
    (tmp_path / "old.txt").write_text("x")
    result = run_cli("broker", "start", "--dir", str(tmp_path))
    assert_one_line_error(result, "not an empty folder")


def test_missing_java_is_one_line(tmp_path):
    env = {"PATH": str(tmp_path), "HOME": str(tmp_path), "TRACKERLAB_CACHE": str(tmp_path / "c")}
    result = run_cli("broker", "start", timeout=60, env=env)
    assert_one_line_error(result, "Java is missing")


def test_missing_maven_is_one_line(tmp_path):
    java = shutil.which("java")
    if java is None:
        pytest.skip("Java is missing: no java on PATH")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "java").symlink_to(Path(java).resolve())
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path), "TRACKERLAB_CACHE": str(tmp_path / "c")}
    result = run_cli("broker", "start", timeout=60, env=env)
    assert_one_line_error(result, "mvn not found", "Pulsar 4.2.4")
