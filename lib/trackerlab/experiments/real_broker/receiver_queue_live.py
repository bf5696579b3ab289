"""Seed 004 re-run for real: PR #976's receiver-queue tables (N46–N57), measured on a real
standalone broker with the Go client's perf tool and with PIP-74's Java client.

**The run.** :func:`run` must be called inside a loopback-only network namespace
(:mod:`trackerlab.broker.netns`: the Go perf tool binds ``*:8000``). It starts a standalone
of ``version`` and runs the rows one at a time, as the PR measured them (*waves* of several
rows at once are an ablation: ``together_up_to_per_s`` puts the rows at or below that rate in
one wave; run together on two cores the slow rows ended at up to four times their size
alone, so the table's runs are solo). Per row, one topic (created with
its partitions through the admin API) and two subscriptions on it:

- ``go``: the PR's consumer, ``perf consume -r 10000 --enable-auto-scaled-queue-size=true``
  (pulsar-client-go v0.10.0, :mod:`trackerlab.broker.goperf`), whose ``--debug`` lines give
  each doubling of each partition consumer's queue;
- ``java``: ``trackerlab.pulsar.QueueSizes`` (``broker/host``), a consumer of the release's
  ``pulsar-client-original`` with ``autoScaledReceiverQueueSizeEnabled(true)``, which samples
  ``getCurrentReceiverQueueSize()`` of each partition's ``ConsumerImpl`` (and of the
  ``MultiTopicsConsumerImpl`` parent) every 20 ms.

Both see the same entries: the PR's producer, ``perf produce -r RATE -s 128 -b 0``, runs for
:data:`RUN_S` once both subscriptions exist. A queue never shrinks in these runs: a
client shrinks only past 95% of its 64 MiB memory limit (Go ``pulsar/client_impl.go:36-37``
at v0.10.0, Java ``PulsarClientImpl.java:97`` at 2.11.0), and a queue here holds at most
1,000 messages of 128 B. So the size at ``t`` seconds into a run is the final size of a run
``t`` seconds long: one run gives the 30 s, 60 s and 120 s outcomes (:data:`SNAPSHOTS_S`).

**What is stored** (:func:`write`): per run ``rq-<version>-<run id>.parquet``, the time series
of every consumer's queue size (``t_ms`` since the producer's start; a Go partition consumer's
initial size 1, ``consumer_partition.go:80`` at b8563cd8, at its subscription), and
``...-rows.parquet``, one row per table row (topic, rate, partitions, messages and entries
in, messages the Java consumer received). Both carry the provenance in the Parquet metadata.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from trackerlab.models.receiver_queue.go import INITIAL_RECEIVER_QUEUE_SIZE as GO_INITIAL_SIZE

__all__ = [
    "CLIENTS",
    "DEFAULT_VERSION",
    "QUEUE_CLASS",
    "RUN_S",
    "SNAPSHOTS_S",
    "WAVE_MAX_RATE_PER_S",
    "QueueRow",
    "RowRun",
    "distribution",
    "outcomes",
    "read_runs",
    "run",
    "waves",
    "write",
]

#: The broker of the PR's measurement: 2.11 was the current line in March 2023 (2.11.0 of
#: 2023-01; 3.0.0 came in May 2023), and 2.11.0 resolves from Central (``broker.versions``).
DEFAULT_VERSION = "2.11.0"
#: Seconds the producer runs.
RUN_S = 120.0
#: The run lengths read from each run (seconds after the producer's start).
SNAPSHOTS_S = (30.0, 60.0, 120.0)
#: Rows at or below this rate share a wave by default (one topic each, on one broker): none.
WAVE_MAX_RATE_PER_S = 0
#: Seconds the consumers keep running after the producer stops.
DRAIN_S = 2.0
#: The clients measured, each on its own subscription of the row's topic.
CLIENTS = ("go", "java")
#: ``host/src/main/java/trackerlab/pulsar/QueueSizes.java``.
QUEUE_CLASS = "trackerlab.pulsar.QueueSizes"
#: Seconds to wait for both subscriptions to exist.
SUBSCRIBE_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class QueueRow:
    """One row of the PR's tables: the producer's rate and the topic's partitions."""

    id: str
    rate_per_s: int
    partitions: int


def waves(
    rows: Sequence[QueueRow], together_up_to_per_s: int = WAVE_MAX_RATE_PER_S
) -> list[list[QueueRow]]:
    """The rows at or below ``together_up_to_per_s`` together first, then each other row
    alone (by default every row alone). O(rows)."""
    slow = [r for r in rows if r.rate_per_s <= together_up_to_per_s]
    return ([slow] if slow else []) + [[r] for r in rows if r.rate_per_s > together_up_to_per_s]


# ----------------------------------------------------------------------------- admin API


def _admin(method: str, url: str, body: bytes | None = None) -> object:
    """One admin call on loopback, never through a proxy; the JSON answer, or None."""
    req = urllib.request.Request(url, data=body, method=method)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(req, timeout=30) as reply:
        data = reply.read()
    return json.loads(data) if data else None


def _topic_url(admin_url: str, topic: str) -> str:
    return f"{admin_url}/persistent/public/default/{topic}"


def create_topic(admin_url: str, topic: str, partitions: int) -> None:
    """A partitioned topic (``PUT .../partitions``); a non-partitioned one is created by the
    first subscription (the standalone allows auto-creation)."""
    if partitions > 1:
        _admin("PUT", f"{_topic_url(admin_url, topic)}/partitions", str(partitions).encode())


def _subscriptions(admin_url: str, topic: str) -> set[str]:
    try:
        names = _admin("GET", f"{_topic_url(admin_url, topic)}/subscriptions")
        return {str(n) for n in names} if isinstance(names, list) else set()
    except OSError:  # the topic does not exist yet (404) or the broker is busy
        return set()


def partition_topics(topic: str, partitions: int) -> list[str]:
    """The topic's local names as the broker keeps them: itself, or ``<topic>-partition-<i>``."""
    return [topic] if partitions == 1 else [f"{topic}-partition-{i}" for i in range(partitions)]


def entries_in(admin_url: str, topic: str, partitions: int) -> int | None:
    """The entries the topic's ledgers hold (``numberOfEntries`` of its internal stats,
    summed over its partitions), or None: with :func:`messages_in`, how many messages the
    producer's batches put in an entry."""
    names = partition_topics(topic, partitions)
    total = 0
    for name in names:
        try:
            data = _admin("GET", f"{_topic_url(admin_url, name)}/internalStats")
        except OSError:
            return None
        value = data.get("numberOfEntries") if isinstance(data, dict) else None
        if not isinstance(value, int | float):
            return None
        total += int(value)
    return total


def cpu_jiffies() -> tuple[int, int, int]:
    """The machine's CPU time so far from ``/proc/stat`` (all CPUs, in clock ticks):
    ``(niced, busy, total)``. ``niced`` is the time of processes at a positive nice (work
    beside the experiment, which runs at the nice it is given); ``busy`` is all but idle and
    iowait. O(1)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    nice, idle, iowait = fields[1], fields[3], fields[4]
    total = sum(fields[:8])
    return nice, total - idle - iowait, total


def _shares(before: tuple[int, int, int], after: tuple[int, int, int]) -> tuple[float, float]:
    """``(busy, niced)`` shares of the machine's CPU time between two readings."""
    total = max(after[2] - before[2], 1)
    return (after[1] - before[1]) / total, (after[0] - before[0]) / total


def messages_in(admin_url: str, topic: str, partitions: int) -> int | None:
    """``msgInCounter`` of the topic (summed over its partitions), or None."""
    path = "partitioned-stats" if partitions > 1 else "stats"
    try:
        data = _admin("GET", f"{_topic_url(admin_url, topic)}/{path}")
    except OSError:
        return None
    value = data.get("msgInCounter") if isinstance(data, dict) else None
    return int(value) if isinstance(value, int | float) else None


# ----------------------------------------------------------------------------- clients


class _Lines:
    """A child's standard output, read line by line on a thread."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.proc = proc
        self.lines: list[str] = []
        self.ready = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.lines.append(line)
            if line == "ready":
                self.ready.set()

    def join(self, timeout_s: float) -> None:
        self._thread.join(timeout_s)


def _stop(proc: subprocess.Popen, sig: int = signal.SIGINT, timeout_s: float = 20.0) -> int:
    """Signal a child, SIGKILL it after ``timeout_s``; its exit code."""
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(sig)
    try:
        return proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


@dataclass
class _RowClients:
    """The processes of one row: the Go consumer, the Java consumer and the producer."""

    row: QueueRow
    topic: str
    go: subprocess.Popen
    go_filter: subprocess.Popen
    go_log: Path
    java: subprocess.Popen
    java_lines: _Lines
    java_log: Path
    subscribed_ms: int
    producer: subprocess.Popen | None = None
    produce_log: Path | None = None
    produce_start_ms: int = 0


def _start_row(row: QueueRow, topic: str, broker, perf: Path, built, run_dir: Path) -> _RowClients:
    from trackerlab.broker import goperf
    from trackerlab.broker.loadgen import start_client
    from trackerlab.core.interrupts import die_with_parent

    create_topic(broker.admin_url, topic, row.partitions)
    go_log = run_dir / f"{topic}-go-consume.log"
    go = subprocess.Popen(
        [str(perf), *goperf.consume_args(broker.service_url, topic, "go")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        env={**os.environ, **goperf.ENV}, preexec_fn=die_with_parent,
    )  # fmt: skip
    with open(go_log, "wb") as out:  # the debug output, filtered as it comes (goperf.LOG_KEEP)
        kept = subprocess.Popen(goperf.log_filter(), stdin=go.stdout, stdout=out,
                                preexec_fn=die_with_parent)  # fmt: skip
    assert go.stdout is not None
    go.stdout.close()
    args = [f"service={broker.service_url}", f"topic={topic}", "subscription=java"]
    try:
        java, java_log = start_client(built, run_dir, f"{topic}-java", QUEUE_CLASS, args)
    except BaseException:
        _stop(go)
        _stop(kept, signal.SIGKILL, 5.0)
        raise
    subscribed_ms = int(time.time() * 1000)
    return _RowClients(row, topic, go, kept, go_log, java, _Lines(java), java_log, subscribed_ms)


def _subscribed(admin_url: str, topic: str, partitions: int) -> bool:
    """Both subscriptions on every partition (a partition consumer that subscribed after
    the producer's start would miss its first messages: the initial position is Latest)."""
    names = partition_topics(topic, partitions)
    return all(set(CLIENTS) <= _subscriptions(admin_url, name) for name in names)


def _wait_subscribed(broker, clients: list[_RowClients]) -> None:
    """Until every row's topic has both subscriptions on every partition and the Java
    consumer said ``ready`` (raises RuntimeError naming the row)."""
    deadline = time.monotonic() + SUBSCRIBE_TIMEOUT_S
    for c in clients:
        while not _subscribed(broker.admin_url, c.topic, c.row.partitions) or not (
            c.java_lines.ready.is_set()
        ):
            for proc, log in ((c.go, c.go_log), (c.java, c.java_log)):
                if proc.poll() is not None:
                    raise RuntimeError(f"a consumer of {c.topic} exited with {proc.returncode}; "
                                       f"log: {log}")  # fmt: skip
            if time.monotonic() > deadline:
                raise RuntimeError(f"{c.topic}: the consumers did not subscribe in "
                                   f"{SUBSCRIBE_TIMEOUT_S:.0f} s (logs: {c.go_log}, {c.java_log})")  # fmt: skip
            time.sleep(0.2)


def _start_producer(c: _RowClients, broker, perf: Path, run_dir: Path) -> None:
    from trackerlab.broker import goperf
    from trackerlab.core.interrupts import die_with_parent

    c.produce_log = run_dir / f"{c.topic}-go-produce.log"
    with open(c.produce_log, "wb") as out:
        c.produce_start_ms = int(time.time() * 1000)
        c.producer = subprocess.Popen(
            [str(perf), *goperf.produce_args(broker.service_url, c.topic, c.row.rate_per_s)],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env={**os.environ, **goperf.ENV}, preexec_fn=die_with_parent,
        )  # fmt: skip


def _stop_row(c: _RowClients) -> None:
    """Close the Java consumer's input (it prints its last sizes), SIGINT the Go consumer."""
    with contextlib.suppress(OSError):
        if c.java.stdin is not None:
            c.java.stdin.close()
    _stop(c.go)
    try:  # the filter ends at the consumer's end of output
        c.go_filter.wait(timeout=10)
    except subprocess.TimeoutExpired:
        _stop(c.go_filter, signal.SIGKILL)
    try:
        c.java.wait(timeout=30)
    except subprocess.TimeoutExpired:
        c.java.kill()
        c.java.wait()
    c.java_lines.join(5.0)


# ----------------------------------------------------------------------------- parsing


def _partition_names(topic: str, partitions: int) -> list[str]:
    return [f"persistent://public/default/{t}" for t in partition_topics(topic, partitions)]


def _consumer_label(name: str) -> str:
    """``partition-2``, ``topic`` (non-partitioned) or ``parent`` (Java's multi-topics)."""
    if name == "parent":
        return "parent"
    return name[name.rindex("partition-") :] if "-partition-" in name else "topic"


def go_series(c: _RowClients, lines: Sequence[str]) -> list[dict[str, object]]:
    """The Go consumer's queue sizes: each partition consumer at its initial size from the
    subscription, then each logged doubling. O(lines)."""
    from trackerlab.broker import goperf

    rows = [
        {"consumer": _consumer_label(n), "t_ms": c.subscribed_ms - c.produce_start_ms,
         "size": GO_INITIAL_SIZE, "source": "initial"}
        for n in _partition_names(c.topic, c.row.partitions)
    ]  # fmt: skip
    for u in goperf.queue_updates(lines, c.subscribed_ms):
        rows.append({"consumer": _consumer_label(u.topic), "t_ms": u.epoch_ms - c.produce_start_ms,
                     "size": u.new, "source": "debug log"})  # fmt: skip
    return rows


def java_series(c: _RowClients, lines: Sequence[str]) -> list[dict[str, object]]:
    """The Java consumer's sampled sizes (``size`` lines). O(lines)."""
    rows = []
    for line in lines:
        f = line.split("\t")
        if f[0] == "size" and len(f) == 4:
            rows.append({"consumer": _consumer_label(f[2]), "t_ms": int(f[1]) - c.produce_start_ms,
                         "size": int(f[3]), "source": "sampled"})  # fmt: skip
    return rows


@dataclass(frozen=True)
class RowRun:
    """One row of one run: its time series and counts."""

    row: QueueRow
    topic: str
    series: pd.DataFrame  # client, consumer, t_ms, size, source
    messages_in: int | None
    entries_in: int | None
    java_received: int | None
    produce_start_ms: int
    #: the machine's CPU while the producer ran: busy, and taken by niced work beside it
    machine_busy_share: float | None = None
    niced_share: float | None = None


def _collect(
    c: _RowClients, msg_in: int | None, entries: int | None, busy: float, niced: float
) -> RowRun:
    go_lines = c.go_log.read_text(errors="replace").splitlines()
    series = [{"client": "go", **r} for r in go_series(c, go_lines)] + [
        {"client": "java", **r} for r in java_series(c, c.java_lines.lines)
    ]
    finals = [line.split("\t") for line in c.java_lines.lines if line.startswith("final\t")]
    received = int(finals[-1][2]) if finals else None
    return RowRun(c.row, c.topic, pd.DataFrame(series), msg_in, entries, received,
                  c.produce_start_ms, busy, niced)  # fmt: skip


def _run_wave(
    wave: list[QueueRow], tag: str, broker, perf: Path, built, run_dir: Path, seconds: float,
    say: Callable[[str], None],
) -> list[RowRun]:  # fmt: skip
    clients: list[_RowClients] = []
    try:
        for row in wave:
            clients.append(
                _start_row(row, f"rq-{row.id.lower()}-{tag}", broker, perf, built, run_dir)
            )
        _wait_subscribed(broker, clients)
        for c in clients:
            _start_producer(c, broker, perf, run_dir)
        say(f"  {', '.join(r.id for r in wave)}: producing for {seconds:g} s")
        cpu_before = cpu_jiffies()
        time.sleep(seconds)
        busy, niced = _shares(cpu_before, cpu_jiffies())
        _check_alive(clients)
        for c in clients:
            assert c.producer is not None
            _stop(c.producer)
        time.sleep(DRAIN_S)
        counts = [(messages_in(broker.admin_url, c.topic, c.row.partitions),
                   entries_in(broker.admin_url, c.topic, c.row.partitions), busy, niced)
                  for c in clients]  # fmt: skip
    finally:
        for c in clients:
            if c.producer is not None and c.producer.poll() is None:
                _stop(c.producer)
            _stop_row(c)
    out = [_collect(c, *n) for c, n in zip(clients, counts, strict=True)]
    for r in out:
        if r.messages_in is None or r.java_received != r.messages_in:
            raise RuntimeError(f"{r.topic}: the topic took in {r.messages_in} messages and the "
                               f"Java consumer received {r.java_received}; the run is not kept")  # fmt: skip
    return out


def _check_alive(clients: list[_RowClients]) -> None:
    """Every producer and consumer still runs when the producers are due to stop
    (RuntimeError naming the first that does not, and its log)."""
    for c in clients:
        for what, proc, log in (("producer", c.producer, c.produce_log),
                                ("Go consumer", c.go, c.go_log),
                                ("Java consumer", c.java, c.java_log)):  # fmt: skip
            if proc is not None and proc.poll() is not None:
                raise RuntimeError(f"{c.topic}: the {what} exited with {proc.returncode} "
                                   f"during the run; log: {log}")  # fmt: skip


def run(
    rows: Sequence[QueueRow], version: str = DEFAULT_VERSION, seconds: float = RUN_S,
    say: Callable[[str], None] = print, together_up_to_per_s: int = WAVE_MAX_RATE_PER_S,
) -> tuple[list[RowRun], dict[str, object]]:  # fmt: skip
    """One run of ``rows`` on a fresh standalone of ``version`` (inside a loopback-only
    namespace: :func:`trackerlab.broker.netns.loopback_namespace`); the rows' series and the
    run's facts for the provenance. Raises what the broker, the host build and the Go build
    raise, and RuntimeError when a client fails."""
    from trackerlab.broker import goperf, host, netns
    from trackerlab.broker.process import running_broker

    inside = os.environ.get(netns.ENV_NAME)
    if not inside or list(netns.own_interfaces()) != ["lo"]:
        raise RuntimeError("the receiver-queue run binds *:8000 (the Go perf tool): it runs "
                           "only inside a loopback-only namespace (trackerlab.broker.netns)")  # fmt: skip
    perf = goperf.build()
    built = host.build(version)
    tag = time.strftime("%Y%m%dt%H%M%S", time.gmtime())
    t0 = time.monotonic()
    out: list[RowRun] = []
    with running_broker(version) as broker:
        say(f"Pulsar {broker.version} standalone ready in {broker.start_seconds:.1f} s "
            f"(namespace {inside}, interfaces {netns.Namespace(inside).interfaces()})")  # fmt: skip
        for wave in waves(rows, together_up_to_per_s):
            out += _run_wave(wave, tag, broker, perf.path, built, broker.run_dir, seconds, say)
        broker_start_s = broker.start_seconds
    client_jar = built.jar("pulsar-client-original")
    facts = {
        "run_id": tag, "pulsar_version": version, "run_seconds": seconds,
        "wall_seconds": round(time.monotonic() - t0, 1), "broker_start_seconds": round(broker_start_s, 1),
        "namespace": inside, "go_perf": f"{goperf.MODULE}@{goperf.VERSION}",
        "java_client": f"pulsar-client-original {client_jar.parent.name if client_jar else 'unknown'}",
        "waves": [[r.id for r in w] for w in waves(rows, together_up_to_per_s)],
        "rows": [asdict(r) for r in rows],
    }  # fmt: skip
    return out, facts


# ----------------------------------------------------------------------------- storage


def frames(
    runs: Sequence[RowRun], run_id: str, version: str, run_s: float
) -> dict[str, pd.DataFrame]:
    """The run's two frames: ``""`` the time series, ``"-rows"`` one line per row."""
    series = []
    for r in runs:
        s = r.series.copy()
        s.insert(0, "row_id", r.row.id)
        series.append(s)
    ts = pd.concat(series, ignore_index=True) if series else pd.DataFrame()
    ts.insert(0, "run_id", run_id)
    ts.insert(1, "pulsar_version", version)
    ts["run_s"] = run_s
    rows = pd.DataFrame([
        {"run_id": run_id, "pulsar_version": version, "row_id": r.row.id,
         "rate_per_s": r.row.rate_per_s, "partitions": r.row.partitions, "topic": r.topic,
         "messages_in": r.messages_in, "entries_in": r.entries_in,
         "java_received": r.java_received,
         "produce_start_ms": r.produce_start_ms, "machine_busy_share": r.machine_busy_share,
         "niced_share": r.niced_share,
         "run_s": run_s}
        for r in runs
    ])  # fmt: skip
    return {"": ts, "-rows": rows}


def write(
    runs: Sequence[RowRun], facts: dict[str, object], out_dir: Path, smoke: bool
) -> list[Path]:
    """``rq-<version>-<run id>[-smoke].parquet`` and ``...-rows.parquet``, each written
    atomically with the provenance (``facts``, the machine, the commit) in its metadata."""
    from trackerlab.core.provenance import git_commit, library_versions
    from trackerlab.experiments.real_broker.results import machine, write_frames

    meta = {"experiment": "receiver-queue", "smoke": smoke, **facts, "machine": machine(),
            "git_commit": git_commit(), "versions": library_versions(),
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}  # fmt: skip
    stem = f"rq-{facts['pulsar_version']}-{facts['run_id']}{'-smoke' if smoke else ''}"
    run_id, version = str(facts["run_id"]), str(facts["pulsar_version"])
    seconds = facts["run_seconds"]
    if not isinstance(seconds, int | float):
        raise TypeError(f"run_seconds is {seconds!r}, not a number")
    return write_frames(out_dir, stem, frames(runs, run_id, version, float(seconds)), meta)


@dataclass(frozen=True)
class StoredRuns:
    """Every stored run of a folder: the series, the rows, and files left out (one line each)."""

    series: pd.DataFrame
    rows: pd.DataFrame
    problems: tuple[str, ...]

    @property
    def runs(self) -> int:
        return self.rows["run_id"].nunique() if len(self.rows) else 0


def read_runs(folder: Path, include_smoke: bool = False) -> StoredRuns:
    """Read ``rq-*.parquet`` pairs of ``folder`` (a damaged or foreign file is named in
    ``problems`` and left out, with its pair); ``solo`` marks the runs whose rows ran one at
    a time (their provenance's ``waves``). O(files + rows)."""
    from trackerlab.experiments.real_broker.stored import read_result_file

    series, rows, problems = [], [], []
    for path in sorted(Path(folder).glob("rq-*-rows.parquet")):
        if path.name.endswith("-smoke-rows.parquet") and not include_smoke:
            continue
        pair = path.with_name(path.name.removesuffix("-rows.parquet") + ".parquet")
        try:
            r, meta = read_result_file(path)
            s, _ = read_result_file(pair)
            if meta.get("experiment") != "receiver-queue" or not {"t_ms", "size"} <= set(s):
                raise ValueError("not a receiver-queue run")
        except (OSError, ValueError) as exc:
            problems.append(f"{path.name}: {exc}")
            continue
        solo = all(len(w) == 1 for w in meta.get("waves") or [[]])
        series.append(s.assign(solo=solo))
        rows.append(r.assign(solo=solo))
    cat = lambda fs: pd.concat(fs, ignore_index=True) if fs else pd.DataFrame()  # noqa: E731
    return StoredRuns(cat(series), cat(rows), tuple(problems))


# ----------------------------------------------------------------------------- outcomes


def outcomes(series: pd.DataFrame, at_s: Sequence[float] = SNAPSHOTS_S) -> pd.DataFrame:
    """Per run, row, client and snapshot: each partition consumer's size at ``t`` seconds
    after the producer's start (its last reading at or before ``t``), the sorted outcome
    (``"4,8,8"``; Java's multi-topics parent apart) and the total. A run is read at each of
    ``at_s`` within its length (``run_s``) and at its end. O(rows × snapshots)."""
    columns = ["run_id", "pulsar_version", "row_id", "client", "t_s", "outcome", "total", "parent"]
    records = []
    keys = columns[:4]
    for key, g in series.sort_values("t_ms", kind="stable").groupby(keys, sort=True):
        run_s = float(g["run_s"].iloc[0])
        for t in sorted({*(t for t in at_s if t <= run_s), run_s}):
            last = g[g["t_ms"] <= t * 1000].groupby("consumer")["size"].last()
            parts = sorted(int(v) for k, v in last.items() if k != "parent")
            records.append({
                **dict(zip(keys, key, strict=True)), "t_s": t,
                "outcome": ",".join(map(str, parts)), "total": sum(parts),
                "parent": int(last["parent"]) if "parent" in last else None,
            })  # fmt: skip
    return pd.DataFrame(records, columns=columns)


def distribution(table: pd.DataFrame, row_id: str, client: str, t_s: float) -> Counter:
    """Outcome -> runs that gave it, for one row, client and snapshot. O(rows)."""
    sel = table[(table["row_id"] == row_id) & (table["client"] == client) & (table["t_s"] == t_s)]
    return Counter(sel["outcome"])


def describe(counts: Counter) -> str:
    """``"2,2,2 in 2/3, 2,2,4 in 1/3"``, most frequent first (ties: smaller total). O(k log k)."""
    n = sum(counts.values())
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], sum(map(int, kv[0].split(","))), kv[0]))
    return ", ".join(f"{o} in {k}/{n}" for o, k in ranked) if n else "no runs"
