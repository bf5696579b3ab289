"""The safety of a live run: what the broker and the workload client listen on and connect
to, and what an interrupted or failed ``trackerlab broker run delayed --smoke`` leaves.

Each test starts a real broker (``BrokerHost``, 20-40 s on two cores) and the Java client.
They skip only when Java, ``mvn`` or Maven Central is missing (one line naming which). The
processes are checked by PID from ``/proc`` (an independent source: not the run's own files):
every PID the run had must be gone (or a zombie) afterwards, and ``--out`` must hold nothing.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import time
from pathlib import Path

from tests.broker.conftest import VERSION
from tests.conftest import run_cli_until
from trackerlab.broker import host, loadgen, nackload, sockets


def _alive(pid: int) -> bool:
    """``/proc/<pid>`` exists and is not a zombie."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return text[text.rindex(")") + 2] not in "ZX"


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2 :].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def test_broker_and_clients_listen_and_connect_on_loopback_only(built):
    """While the three workload clients produce and consume at once (``DelayedLoad``,
    ``NackLoad`` and ``PendingLoad``, each in its JVM): every TCP/UDP socket of the broker's
    process group and of each client JVM is on 127.0.0.1 (listening, bound or connected). The
    check must see something: the broker's three ports listen, and each client holds a
    connection to the broker's binary port. Each JVM's one UDP socket (Netty's
    DnsNameResolver of a Pulsar client: the broker's own, bound by
    ``brokerClient_dnsLookupBindAddress``, and each client's, bound by
    ``ClientBuilder.dnsLookupBind``) is on 127.0.0.1 too; unbound, both were on 0.0.0.0
    (measured 2026-11-27 on 4.2.4)."""
    with host.running_host(VERSION) as (b, _client, hb), contextlib.ExitStack() as clients:
        url = b.service_url
        delayed = loadgen.LoadSpec("safety", ("s",), 200, 20, "uniform:0:5000")
        nack = nackload.NackLoadSpec("safety-nack", "n", 200, 20, 0.1, 1000)
        pending = loadgen.PendingSpec("safety-pending", ("p",), ("never",), 200, 20)
        pending_dir = b.run_dir / "pending"
        pending_dir.mkdir()
        loads = [
            clients.enter_context(loadgen.running_load(hb, url, delayed, b.run_dir)),
            clients.enter_context(nackload.running_nack_load(hb, url, nack, b.run_dir)),
            clients.enter_context(loadgen.running_load(hb, url, pending, pending_dir)),
        ]
        time.sleep(4)
        assert all(load.alive() for load in loads)
        broker_pids = sockets.group_pids(b.pid)
        client_pids = [load.proc.pid for load in loads]
        assert b.pid in broker_pids
        found = sockets.open_sockets(broker_pids + client_pids)
        off = sockets.off_loopback(broker_pids + client_pids)
        listening = {s.port for s in found if s.listening and s.pid in broker_pids}
        to_broker = {pid: [s for s in found if s.pid == pid and s.remote_port == b.ports.broker]
                     for pid in client_pids}  # fmt: skip
    assert off == [], [str(s) for s in off]
    assert {b.ports.broker, b.ports.web, b.ports.bookie} <= listening, sorted(listening)
    for pid, conns in to_broker.items():
        assert conns and all(s.remote == "127.0.0.1" for s in conns), pid
    assert not _alive(b.pid) and not any(_alive(pid) for pid in client_pids)


def _run_and(how: str, out: Path) -> tuple[object, dict[str, int]]:
    """``broker run delayed --smoke``; at its second sample (about 8 s of load), ``how``:
    Ctrl-C (SIGINT to the command) or SIGKILL to the workload client. Returns the result and
    the PIDs seen then."""
    pids: dict[str, int] = {}

    def act(proc: subprocess.Popen) -> None:
        for child in _children(proc.pid):
            line = _cmdline(child)
            if b"DelayedLoad" in line:
                pids["client"] = child
            elif b"BrokerHost" in line:
                pids["broker"] = child
        if how == "Ctrl-C":
            proc.send_signal(signal.SIGINT)
        else:
            os.kill(pids["client"], signal.SIGKILL)

    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    args = ["broker", "run", "delayed", "--smoke", "--pulsar-version", VERSION, "--out", str(out)]
    result = run_cli_until(args, r"^\s+t=\s*8\.\d s", act, env=env, timeout=600, stream="stdout")
    return result, pids


def _nothing_left(pids: dict[str, int], out: Path) -> None:
    assert set(pids) == {"broker", "client"}, pids
    deadline = time.monotonic() + 10  # the kernel reparents and reaps the exited JVMs
    while any(_alive(p) for p in pids.values()) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [name for name, p in pids.items() if _alive(p)], f"left running: {pids}"
    assert not out.exists() or not any(out.iterdir()), sorted(out.iterdir())


def test_ctrl_c_mid_run_leaves_no_process_and_no_result(tmp_path, built):
    out = tmp_path / "out"
    result, pids = _run_and("Ctrl-C", out)
    assert result.returncode == 130, (result.stdout[-2000:], result.stderr[-2000:])
    _nothing_left(pids, out)


def test_a_killed_client_is_one_line_naming_its_log(tmp_path, built):
    out = tmp_path / "out"
    result, pids = _run_and("kill the client", out)
    assert result.returncode == 1, (result.stdout[-2000:], result.stderr[-2000:])
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, result.stderr
    assert "the workload client died mid-run" in lines[0]
    log = re.search(r"log: (\S+load\.log)", lines[0])
    assert log and Path(log.group(1)).is_file(), lines[0]
    _nothing_left(pids, out)
