"""A network namespace that holds only its own loopback, for tools that bind every interface.

The Go perf tool starts a Prometheus server on ``:8000`` before it parses its flags
(``perf/perf.go`` at v0.10.0: ``--metrics -1`` does not stop it), so it cannot be kept on
127.0.0.1 by its arguments. Run inside :func:`loopback_namespace`, ``*:8000`` is reachable
only from that namespace: its one interface is ``lo`` (``ip netns add`` creates a namespace
with nothing else; :func:`loopback_namespace` brings ``lo`` up and checks that nothing more
is there).

Creating a namespace needs ``CAP_SYS_ADMIN`` (root) and iproute2's ``ip``:
:func:`unavailable` names what is missing. Every process left in the namespace is killed by
PID (``ip netns pids``) and the namespace deleted when the block ends, however it ends.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

__all__ = [
    "ENV_NAME",
    "PREFIX",
    "Namespace",
    "NamespaceFailed",
    "loopback_namespace",
    "unavailable",
]

#: Namespace names trackerlab creates: ``trackerlab-<pid>-<n>``.
PREFIX = "trackerlab-"
#: Set inside a namespace trackerlab entered (its name), so a command knows it is inside.
ENV_NAME = "TRACKERLAB_NETNS"
_count = 0


class NamespaceFailed(RuntimeError):
    """The namespace could not be made or is not loopback-only: one line."""


def _ip(*args: str, timeout_s: float = 30.0) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=timeout_s)


#: ``CAP_SYS_ADMIN``'s bit in ``CapEff`` (include/uapi/linux/capability.h).
_CAP_SYS_ADMIN = 21


def _has_sys_admin() -> bool:
    """This process's effective capabilities hold ``CAP_SYS_ADMIN`` (``/proc/self/status``)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("CapEff:"):
                    return bool(int(line.split()[1], 16) >> _CAP_SYS_ADMIN & 1)
    except OSError:
        pass
    return False


def unavailable() -> str | None:
    """Why no namespace can be made here (no ``ip``, no ``CAP_SYS_ADMIN``), or None."""
    if shutil.which("ip") is None:
        return "iproute2's ip is not installed (apt-get install iproute2)"
    if not _has_sys_admin():
        return (f"network namespaces need CAP_SYS_ADMIN, which this process (uid "
                f"{os.geteuid()}) does not hold")  # fmt: skip
    return None


def own_interfaces() -> dict[str, list[str]]:
    """The interfaces of this process's own namespace and their addresses. O(interfaces)."""
    out = _ip("-brief", "addr").stdout
    return {f[0]: f[2:] for f in (line.split() for line in out.splitlines()) if f}


@dataclass(frozen=True)
class Namespace:
    """A live namespace: its name and how to run a command inside it."""

    name: str

    def command(self, argv: Sequence[str]) -> list[str]:
        """``argv`` run inside the namespace (``ip netns exec NAME ...``), with
        :data:`ENV_NAME` set. O(len(argv))."""
        return ["ip", "netns", "exec", self.name, "env", f"{ENV_NAME}={self.name}", *argv]

    def interfaces(self) -> dict[str, list[str]]:
        """Interface -> its addresses (``ip -brief addr``). O(interfaces)."""
        out = _ip("-n", self.name, "-brief", "addr").stdout
        return {f[0]: f[2:] for f in (line.split() for line in out.splitlines()) if f}

    def pids(self) -> list[int]:
        """The processes whose network namespace this is (``ip netns pids``)."""
        out = _ip("netns", "pids", self.name).stdout
        return [int(p) for p in out.split() if p.isdigit()]

    def kill_all(self, grace_s: float = 5.0) -> None:
        """SIGTERM every process in the namespace, SIGKILL what is left after ``grace_s``."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            pids = self.pids()
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)
            deadline = time.monotonic() + (grace_s if sig == signal.SIGTERM else 5.0)
            while pids and self.pids() and time.monotonic() < deadline:
                time.sleep(0.1)
            if not self.pids():
                return


@contextlib.contextmanager
def loopback_namespace() -> Iterator[Namespace]:
    """``with loopback_namespace() as ns:`` a new namespace whose only interface is ``lo``
    (up: 127.0.0.1/8 and ::1). Raises :class:`NamespaceFailed` naming the reason. Every
    process in it is killed and the namespace deleted when the block ends."""
    global _count
    why = unavailable()
    if why:
        raise NamespaceFailed(why)
    _count += 1
    ns = Namespace(f"{PREFIX}{os.getpid()}-{_count}")
    made = _ip("netns", "add", ns.name)
    if made.returncode != 0:
        raise NamespaceFailed(f"ip netns add {ns.name}: {made.stderr.strip()}")
    try:
        up = _ip("-n", ns.name, "link", "set", "lo", "up")
        if up.returncode != 0:
            raise NamespaceFailed(f"ip -n {ns.name} link set lo up: {up.stderr.strip()}")
        found = ns.interfaces()
        if list(found) != ["lo"]:
            raise NamespaceFailed(f"namespace {ns.name} holds {sorted(found)}, not lo alone")
        yield ns
    finally:
        ns.kill_all()
        _ip("netns", "del", ns.name)
