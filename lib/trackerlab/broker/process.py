"""Start, stop and inspect a standalone broker process by its PID.

A run lives in a folder of its own (``$TRACKERLAB_CACHE/broker/<run-id>/`` or one the caller
names, new or empty): ``broker.conf``, ``log4j2.properties``, ``jvm.args`` (the JVM options
and class path, passed as ``java @jvm.args``), ``data/`` (RocksDB metadata and the bookie's
ledgers: fresh each run, removed on stop unless kept), ``broker.log`` (everything the JVM
prints), ``broker.pid`` while it runs and ``run.json`` (version, pid, ports, times).

The JVM starts in a session of its own, so its process group is its PID: :func:`stop` sends
SIGTERM to the group (the standalone's shutdown hook closes broker and bookie), then SIGKILL
after a timeout. A PID is trusted only while ``/proc/<pid>`` shows the same process: its
command line names this run's ``broker.conf`` and its start time is the recorded one.
:func:`start` returns once the admin REST API lists the cluster and the ``public/default``
namespace exists (both created by the standalone after the broker starts).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shlex
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import trackerlab.broker.classpath as classpath
import trackerlab.broker.standalone_config as standalone_config
from trackerlab.broker.sockets import (
    LOOPBACK,
    Bound,
    Listening,
    free_ports,
    group_pids,
    listening_sockets,
    open_sockets,
)
from trackerlab.broker.versions import BrokerRelease, select_release
from trackerlab.core.durable import atomic_write_bytes
from trackerlab.core.errors import UsageError
from trackerlab.core.interrupts import die_with_parent, sigint_held
from trackerlab.core.java_runtime import (
    INSTALL_HINT,
    MIN_JAVA,
    JavaMissing,
    java_executable,
    java_major,
)
from trackerlab.core.paths import cache_dir
from trackerlab.core.safe_yaml import read_json
from trackerlab.jvmcheck.pulsar import maven

__all__ = [
    "READY_TIMEOUT_S",
    "STOP_TIMEOUT_S",
    "Broker",
    "BrokerFailed",
    "BrokerUnavailable",
    "RunStatus",
    "Stopped",
    "load",
    "prepare",
    "running_broker",
    "runs",
    "runs_dir",
    "start",
    "status",
    "stop",
]

#: Seconds a start may take until ready (2 cores: about 20-30 s; over 60 s seen in CI).
READY_TIMEOUT_S = 240.0
#: Seconds between SIGTERM and SIGKILL (the standalone closes in 1-3 s).
STOP_TIMEOUT_S = 30.0
#: Extra JVM options for the broker (shell words), e.g. an agent or a heap-dump flag.
JVM_OPTS_ENV = "TRACKERLAB_BROKER_JVM_OPTS"
RUN_FILE, PID_FILE, LOG_FILE, CONF_FILE = "run.json", "broker.pid", "broker.log", "broker.conf"
_POLL_S = 0.25
#: The brokers this process started and has not reaped yet (pid -> Popen).
_CHILDREN: dict[int, subprocess.Popen] = {}


class BrokerUnavailable(UsageError):
    """Java or the release's Maven artifacts are missing: one line naming what (exit 2)."""


class BrokerFailed(RuntimeError):
    """The broker died or never became ready: one line naming its log (exit 1)."""


@dataclass(frozen=True)
class Broker:
    """A started standalone broker: where it listens and how to find its process."""

    version: str
    run_dir: Path
    pid: int
    ports: standalone_config.Ports
    proc_start: int  # /proc/<pid>/stat starttime: tells a reused PID apart
    started_at: float  # epoch seconds at launch
    start_seconds: float  # launch to ready
    cluster: str = standalone_config.CLUSTER
    classpath_seconds: float = 0.0  # Maven resolution before the launch (0: cached)
    extra_jvm_options: tuple[str, ...] = field(default=())
    #: the JVM's main class: PulsarStandaloneStarter, or a host that starts it in-process
    #: (trackerlab.broker.host's BrokerHost)
    main_class: str = standalone_config.MAIN_CLASS

    @property
    def log(self) -> Path:
        return self.run_dir / LOG_FILE

    @property
    def service_url(self) -> str:
        """The binary protocol's URL, for clients."""
        return f"pulsar://{LOOPBACK}:{self.ports.broker}"

    @property
    def web_url(self) -> str:
        return f"http://{LOOPBACK}:{self.ports.web}"

    @property
    def admin_url(self) -> str:
        """The admin REST API (``/admin/v2``)."""
        return f"{self.web_url}/admin/v2"

    def to_json(self) -> dict:
        out = asdict(self)
        out["run_dir"] = str(self.run_dir)
        out["extra_jvm_options"] = list(self.extra_jvm_options)
        return out

    @classmethod
    def from_json(cls, data: dict) -> Broker:
        data = dict(data)
        data["run_dir"] = Path(data["run_dir"])
        data["ports"] = standalone_config.Ports(**data["ports"])
        data["extra_jvm_options"] = tuple(data.get("extra_jvm_options", ()))
        return cls(**data)


@dataclass(frozen=True)
class RunStatus:
    """What :func:`status` sees of a run."""

    broker: Broker
    running: bool
    uptime_s: float | None  # None when not running
    rss_bytes: int | None
    listening: tuple[Listening, ...]
    #: UDP sockets bound to a port (they receive): the internal client's DNS resolver
    udp: tuple[Bound, ...] = ()


@dataclass(frozen=True)
class Stopped:
    """How :func:`stop` ended a run: ``SIGTERM``, ``SIGKILL`` or ``not running``."""

    broker: Broker
    how: str
    seconds: float


def runs_dir() -> Path:
    """Where runs without a folder of their own go: ``$TRACKERLAB_CACHE/broker``."""
    return cache_dir() / "broker"


def _java() -> str:
    if java_executable() is None:
        raise BrokerUnavailable(
            f"Java is missing: a Pulsar broker needs Java {MIN_JAVA} or 21; {INSTALL_HINT}"
        )
    try:
        exe, major = java_major()
    except JavaMissing as exc:  # it cannot run
        raise BrokerUnavailable(f"Java is missing: {exc}") from exc
    if major is None or major < MIN_JAVA:
        raise BrokerUnavailable(
            f"{exe} is Java {major}; a Pulsar broker needs Java {MIN_JAVA} or 21; {INSTALL_HINT}"
        )
    return exe


def _class_path(release: BrokerRelease) -> classpath.BrokerClassPath:
    try:
        return classpath.resolve(release)
    except maven.MavenUnavailable as exc:
        raise BrokerUnavailable(
            f"Pulsar {release.version}'s broker jars are missing: {exc}"
        ) from exc


def prepare(version: str | None = None) -> classpath.BrokerClassPath:
    """What a start needs before the launch: Java checked and the release's class path
    resolved (Maven, or the cache). Raises UsageError (a bad version) and
    :class:`BrokerUnavailable` naming what is missing."""
    release = select_release(version)
    _java()
    return _class_path(release)


def _fresh_run_dir(run_dir: Path | None, release: BrokerRelease) -> Path:
    """The run's folder (not created yet): ``run_dir``, which must be new or empty, or a new
    one under :func:`runs_dir`."""
    if run_dir is None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        run_dir = runs_dir() / f"{stamp}-{release.version}-{secrets.token_hex(3)}"
    run_dir = Path(run_dir).expanduser().absolute()
    if run_dir.exists() and (not run_dir.is_dir() or any(run_dir.iterdir())):
        raise UsageError(f"--dir {run_dir}: not an empty folder (each run needs a fresh one)")
    return run_dir


def _argfile(words: Sequence[str]) -> str:
    """A ``java @file`` argument file: one quoted word a line."""

    def quote(word: str) -> str:
        return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'

    return "".join(quote(w) + "\n" for w in words)


def _proc_start(pid: int) -> int | None:
    """``/proc/<pid>/stat`` field 22 (start time in clock ticks), None if gone or a zombie."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return None if fields[0] in "ZX" else int(fields[19])


def _is_running(broker: Broker) -> bool:
    """The PID is this run's JVM: same start time, command line naming this run's conf."""
    if _proc_start(broker.pid) != broker.proc_start:
        return False
    try:
        cmdline = Path(f"/proc/{broker.pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return str(broker.run_dir / CONF_FILE).encode() in cmdline


def _write_run(broker: Broker, **extra: object) -> None:
    data = {**broker.to_json(), **extra}
    atomic_write_bytes(broker.run_dir / RUN_FILE, json.dumps(data, indent=1).encode() + b"\n")


def load(run_dir: Path) -> Broker:
    """The broker recorded in ``run_dir/run.json``; a UsageError if there is none."""
    path = Path(run_dir).expanduser().absolute() / RUN_FILE
    if not path.exists() and not path.is_symlink():
        raise UsageError(f"--dir {path.parent}: no broker run there (no {RUN_FILE})")
    data = read_json(path, "--dir", 1 << 20)  # the bounded reader: one line naming the file
    if not isinstance(data, dict):
        raise UsageError(f"--dir: {path} is not a broker run record (a JSON object)")
    known = set(Broker.__dataclass_fields__)
    return Broker.from_json({k: v for k, v in data.items() if k in known})


def runs() -> list[Path]:
    """Every run folder under :func:`runs_dir`, oldest first."""
    base = runs_dir()
    found = [p.parent for p in base.glob(f"*/{RUN_FILE}")] if base.is_dir() else []
    return sorted(found, key=lambda p: p.name)


def _admin_lists(url: str, wanted: str) -> bool:
    """GET ``url`` (JSON list) lists ``wanted``; False while the broker cannot answer."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never a proxy
    try:
        with opener.open(url, timeout=5) as reply:
            return wanted in json.loads(reply.read())
    except (OSError, ValueError, urllib.error.URLError):
        return False


def _wait_ready(proc: subprocess.Popen, broker: Broker, timeout_s: float, deadline: float) -> None:
    """Poll the admin API until the cluster and ``public/default`` are listed."""
    checks = [
        (f"{broker.admin_url}/clusters", broker.cluster),
        (f"{broker.admin_url}/namespaces/public", "public/default"),
    ]
    while checks:
        code = proc.poll()
        if code is not None:
            raise BrokerFailed(
                f"the Pulsar {broker.version} broker exited with code {code} while starting; "
                f"its log: {broker.log}"
            )
        if _admin_lists(*checks[0]):
            checks.pop(0)
            continue
        if time.monotonic() > deadline:
            raise BrokerFailed(
                f"the Pulsar {broker.version} broker was not ready after {timeout_s:.0f} s; "
                f"its log: {broker.log}"
            )
        time.sleep(_POLL_S)


def _write_run_files(
    run: Path,
    java: str,
    cp: classpath.BrokerClassPath,
    ports: standalone_config.Ports,
    extra: Sequence[str],
    main_class: str,
    class_path_prefix: Sequence[Path],
    broker_overrides: Mapping[str, str] | None,
) -> list[str]:
    """Write the run folder's broker.conf, log4j2.properties, jvm.args and data folder;
    return the standalone's command line."""
    conf = standalone_config.write_properties(
        run / CONF_FILE,
        standalone_config.broker_properties(
            ports, standalone_config.loopback_interface(), broker_overrides
        ),
    )
    (run / "log4j2.properties").write_text(standalone_config.log4j2_properties())
    jvm = [*standalone_config.jvm_options(run / "log4j2.properties", run / LOG_FILE), *extra]
    class_path = os.pathsep.join([*map(str, class_path_prefix), str(cp)])
    (run / "jvm.args").write_text(_argfile([*jvm, "-cp", class_path]))
    data = run / "data"
    data.mkdir()
    return [
        java,
        f"@{run / 'jvm.args'}",
        main_class,
        *standalone_config.standalone_args(conf, data, ports),
    ]


def _launch_until_ready(
    cmd: list[str],
    run: Path,
    release: BrokerRelease,
    ports: standalone_config.Ports,
    cp: classpath.BrokerClassPath,
    extra: Sequence[str],
    main_class: str,
    attached: bool,
    timeout_s: float,
) -> tuple[subprocess.Popen, Broker, float]:
    """Launch the standalone, record it as starting and wait until it is ready; on any
    failure or Ctrl-C it is stopped before the exception goes on. The process, its record
    and the launch time (epoch s)."""
    proc: subprocess.Popen | None = None
    broker: Broker | None = None
    # the try encloses the held block's exit too: a Ctrl-C that lands as the handler is
    # restored (the moment run.json appears) must stop the broker like any later one
    try:
        with sigint_held() as interrupted, open(run / LOG_FILE, "ab") as log:
            started_at = time.time()
            deadline = time.monotonic() + timeout_s
            proc = subprocess.Popen(
                cmd, cwd=run, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True, preexec_fn=die_with_parent if attached else None,
            )  # fmt: skip
            _CHILDREN[proc.pid] = proc
            (run / PID_FILE).write_text(f"{proc.pid}\n")
            broker = Broker(
                release.version, run, proc.pid, ports, _proc_start(proc.pid) or 0, started_at,
                0.0, classpath_seconds=cp.seconds, extra_jvm_options=tuple(extra),
                main_class=main_class,
            )  # fmt: skip
            _write_run(broker, state="starting")
        if interrupted():
            raise KeyboardInterrupt
        _wait_ready(proc, broker, timeout_s, deadline)
    except BaseException:
        if broker is not None:
            _stop_held(broker, keep_data=True)
        elif proc is not None:  # the record was not written: stop the JVM's group directly
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        raise
    return proc, broker, started_at


def start(
    version: str | None = None,
    run_dir: Path | None = None,
    *,
    timeout_s: float = READY_TIMEOUT_S,
    extra_jvm_options: Sequence[str] = (),
    attached: bool = True,
    main_class: str = standalone_config.MAIN_CLASS,
    class_path_prefix: Sequence[Path] = (),
    broker_overrides: Mapping[str, str] | None = None,
) -> Broker:
    """Start a standalone broker of ``version`` (default: the newest runnable release) and
    return it once ready. ``attached``: the kernel kills it when this thread ends (a library
    caller); the command line's ``broker start`` detaches it. ``extra_jvm_options`` come
    after trackerlab's (so they win), then ``$TRACKERLAB_BROKER_JVM_OPTS``. ``main_class``
    (default ``PulsarStandaloneStarter``) takes the standalone's arguments: another main must
    start the standalone with them (``trackerlab.pulsar.BrokerHost`` does), from classes in
    ``class_path_prefix``, which come before the release's jars. ``broker_overrides``:
    ``ServiceConfiguration`` keys written last into ``broker.conf`` (never the loopback ones:
    :data:`trackerlab.broker.standalone_config.PINNED`).

    Raises UsageError (a bad version or folder), :class:`BrokerUnavailable` (no Java, or
    Maven cannot give the jars) and :class:`BrokerFailed` (the broker died or was not ready
    in ``timeout_s``; it is stopped). Ctrl-C while starting stops it too."""
    release = select_release(version)
    run = _fresh_run_dir(run_dir, release)
    java = _java()
    cp = _class_path(release)
    run.mkdir(parents=True, exist_ok=True)
    ports = standalone_config.Ports(*free_ports(3))
    extra = (*extra_jvm_options, *shlex.split(os.environ.get(JVM_OPTS_ENV, "")))
    cmd = _write_run_files(
        run, java, cp, ports, extra, main_class, class_path_prefix, broker_overrides
    )
    proc, broker, started_at = _launch_until_ready(
        cmd, run, release, ports, cp, extra, main_class, attached, timeout_s
    )
    ready = Broker(**{**broker.__dict__, "start_seconds": time.time() - started_at})
    _write_run(ready, state="running")
    if not attached:
        _CHILDREN.pop(proc.pid, None)  # the broker outlives this process; init reaps it
    return ready


def _wait_gone(pgid: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while True:
        child = _CHILDREN.get(pgid)
        if child is not None:
            child.poll()  # reap the JVM once it exits: a zombie is in no group
        if not group_pids(pgid):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)


def stop(
    target: Broker | Path, timeout_s: float = STOP_TIMEOUT_S, keep_data: bool = False
) -> Stopped:
    """Stop a run (a :class:`Broker` or its folder): SIGTERM to its process group, SIGKILL
    after ``timeout_s``; then remove its ``data/`` unless ``keep_data``. A run whose PID is
    gone, or is another process now, is ``not running`` (nothing is signalled)."""
    broker = target if isinstance(target, Broker) else load(target)
    t0 = time.monotonic()
    how = "not running"
    if _is_running(broker):
        how = "SIGTERM"
        with contextlib.suppress(ProcessLookupError):
            os.killpg(broker.pid, signal.SIGTERM)
        if not _wait_gone(broker.pid, timeout_s):
            how = "SIGKILL"
            with contextlib.suppress(ProcessLookupError):
                os.killpg(broker.pid, signal.SIGKILL)
            _wait_gone(broker.pid, 30.0)
    child = _CHILDREN.pop(broker.pid, None)
    if child is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=5)
    (broker.run_dir / PID_FILE).unlink(missing_ok=True)
    if not keep_data:
        shutil.rmtree(broker.run_dir / "data", ignore_errors=True)
    with contextlib.suppress(OSError):
        _write_run(broker, state="stopped", stopped_at=time.time(), stopped_by=how)
    return Stopped(broker, how, time.monotonic() - t0)


def _stop_held(broker: Broker, keep_data: bool = False) -> Stopped:
    """:func:`stop` with Ctrl-C held until it is done; re-raised after."""
    with sigint_held() as interrupted:
        stopped = stop(broker, keep_data=keep_data)
    if interrupted():
        raise KeyboardInterrupt
    return stopped


def _rss_bytes(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def status(target: Broker | Path) -> RunStatus:
    """Whether the run's broker is running, for how long, its resident memory, the TCP
    sockets its process group listens on and the UDP sockets it has bound."""
    broker = target if isinstance(target, Broker) else load(target)
    if not _is_running(broker):
        return RunStatus(broker, False, None, None, ())
    pids = group_pids(broker.pid) or [broker.pid]
    return RunStatus(
        broker, True, time.time() - broker.started_at, _rss_bytes(broker.pid),
        tuple(listening_sockets(pids)),
        tuple(s for s in open_sockets(pids) if s.protocol.startswith("udp") and s.listening),
    )  # fmt: skip


@contextlib.contextmanager
def running_broker(
    version: str | None = None,
    run_dir: Path | None = None,
    *,
    timeout_s: float = READY_TIMEOUT_S,
    extra_jvm_options: Sequence[str] = (),
    main_class: str = standalone_config.MAIN_CLASS,
    class_path_prefix: Sequence[Path] = (),
) -> Iterator[Broker]:
    """``with running_broker("4.2.4") as b:`` a ready broker (``b.service_url``,
    ``b.admin_url``, ``b.ports``, ``b.pid``), stopped when the block ends however it ends
    (an exception or Ctrl-C included; a Ctrl-C during the stop waits for it). The kernel
    kills it if this process dies first."""
    broker = start(
        version, run_dir, timeout_s=timeout_s, extra_jvm_options=extra_jvm_options,
        main_class=main_class, class_path_prefix=class_path_prefix,
    )  # fmt: skip
    try:
        yield broker
    finally:
        _stop_held(broker)
