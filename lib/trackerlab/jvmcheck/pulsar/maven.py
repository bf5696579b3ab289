"""Pulsar's released jars on a class path, resolved by Maven from ``maven/pom.xml``.

``build(version)`` runs, in a cache folder of its own (``$TRACKERLAB_CACHE/pulsar/<version>``)::

    mvn -B -s maven/settings.xml -Dpulsar.version=V -Dtrackerlab.build.dir=D \\
        compile dependency:build-classpath

which resolves ``pulsar-broker``, ``pulsar-client-original`` and ``pulsar-common`` at that
release (the jars land in ``~/.m2``), compiles the harness (``maven/src/main/java``) against
them and writes the class path. A finished build is reused while the pom and the harness
sources are unchanged. ``maven/settings.xml`` sends every repository a Pulsar pom names to
Maven Central, so a build asks no other host.

A client-only build (``client_only=True``, profile ``!broker``) serves a line whose
``pulsar-broker`` Central does not serve.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from trackerlab.core.interrupts import die_with_parent
from trackerlab.core.paths import cache_dir

MAVEN_DIR = Path(__file__).resolve().parent / "maven"
#: Sends every repository a Pulsar pom names to Maven Central (``trackerlab.broker`` too).
SETTINGS = MAVEN_DIR / "settings.xml"
#: Seconds a build may take (a cold ~/.m2 downloads ~250 MB per release).
BUILD_TIMEOUT_S = 1800
_MISSING = (
    re.compile(r"Failed to read artifact descriptor for ([\w.\-]+:[\w.\-]+:[\w.\-]+:[\w.\-]+)"),
    re.compile(r"Could not find artifact ([\w.\-]+:[\w.\-]+:[\w.\-]+:[\w.\-]+)"),
    re.compile(r"([\w.\-]+:[\w.\-]+:[\w.\-]+:[\w.\-]+) was not found in"),
    re.compile(r"artifacts could not be resolved: ([\w.\-]+:[\w.\-]+:[\w.\-]+:[\w.\-]+)"),
)
_OFFLINE = re.compile(r"Unknown host|Connection refused|Network is unreachable|timed out", re.I)


class MavenUnavailable(RuntimeError):
    """A release's class path cannot be had: one line naming what is missing (``mvn``, an
    artifact Central does not serve, the network). Callers skip or stop with it."""


class HarnessBuildFailed(RuntimeError):
    """The harness did not compile against a release, or Maven failed otherwise: a defect,
    never a skip. The message names the log."""


@dataclass(frozen=True)
class ClassPath:
    """A release's resolved class path: the compiled harness and every jar."""

    version: str
    client_only: bool
    classes: Path
    jars: tuple[Path, ...]
    seconds: float  # build time (0.0 when reused)

    def entries(self) -> list[str]:
        return [str(self.classes), *map(str, self.jars)]

    def jar(self, artifact: str) -> Path | None:
        """The jar of ``artifact`` (``pulsar-broker``, ``RoaringBitmap``...) on the path."""
        for jar in self.jars:
            if re.fullmatch(re.escape(artifact) + r"-\d[\w.\-]*\.jar", jar.name):
                return jar
        return None

    def artifact_version(self, artifact: str) -> str | None:
        """The version of ``artifact`` on the path, read from the jar's Maven folder."""
        jar = self.jar(artifact)
        return jar.parent.name if jar is not None else None


def mvn_executable() -> str | None:
    return shutil.which("mvn")


def _fingerprint() -> str:
    digest = hashlib.sha256()
    for path in sorted(MAVEN_DIR.rglob("*")):
        if path.is_file() and "target" not in path.parts:
            digest.update(str(path.relative_to(MAVEN_DIR)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def build_dir(version: str, client_only: bool = False) -> Path:
    suffix = "-client" if client_only else ""
    return cache_dir() / "pulsar" / f"{version}{suffix}-{_fingerprint()}"


def cached(version: str, client_only: bool = False, target: Path | None = None) -> ClassPath | None:
    """The finished build of this release (in ``target``, default :func:`build_dir`), if there
    is one. O(jars)."""
    target = target or build_dir(version, client_only)
    listing = target / "classpath.txt"
    if not (target / "classes").is_dir() or not listing.is_file():
        return None
    jars = tuple(Path(p) for p in listing.read_text().strip().split(os.pathsep) if p)
    if not all(j.is_file() for j in jars):  # ~/.m2 was cleaned: build again
        return None
    return ClassPath(version, client_only, target / "classes", jars, 0.0)


def build(version: str, client_only: bool = False) -> ClassPath:
    """Resolve and compile against ``version`` (reusing a finished build). Raises
    :class:`MavenUnavailable` when something outside the repository is missing and
    :class:`HarnessBuildFailed` for anything else."""
    target = build_dir(version, client_only)  # one fingerprint for the whole build
    found = cached(version, client_only, target)
    if found is not None:
        return found
    if mvn_executable() is None:
        raise MavenUnavailable("mvn not found: install Maven (Debian: apt-get install maven)")
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{version}-", dir=target.parent))
    log = target.parent / f"maven-{version}{'-client' if client_only else ''}.log"
    args = [
        "-f", str(MAVEN_DIR / "pom.xml"),
        f"-Dpulsar.version={version}", f"-Dtrackerlab.build.dir={work}",
        *(["-P", "!broker"] if client_only else []),
        "compile", "dependency:build-classpath",
    ]  # fmt: skip
    t0 = time.perf_counter()
    try:
        run_maven(args, version, log, work)
        shutil.rmtree(target, ignore_errors=True)
        work.rename(target)
        _remove_older_builds(target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    found = cached(version, client_only, target)
    if found is None:
        raise HarnessBuildFailed(f"Maven finished but left no class path for {version} ({log})")
    return ClassPath(version, client_only, found.classes, found.jars, time.perf_counter() - t0)


def run_maven(args: list[str], version: str, log: Path, cwd: Path) -> None:
    """Run ``mvn -B -s settings.xml ARGS`` in ``cwd`` for Pulsar ``version``, its output in
    ``log``; Ctrl-C or a timeout leaves no Maven running. Raises :class:`MavenUnavailable`
    (no ``mvn``, no Central, an artifact not served) or :class:`HarnessBuildFailed`."""
    mvn = mvn_executable()
    if mvn is None:
        raise MavenUnavailable("mvn not found: install Maven (Debian: apt-get install maven)")
    cmd = [mvn, "-B", "-s", str(SETTINGS), *args]
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            cmd, stdout=out, stderr=subprocess.STDOUT, cwd=cwd, preexec_fn=die_with_parent
        )
        try:
            code = proc.wait(timeout=BUILD_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            _stop(proc)
            raise MavenUnavailable(
                f"Maven did not finish in {BUILD_TIMEOUT_S} s for Pulsar {version} (log: {log})"
            ) from None
        except BaseException:  # Ctrl-C: no Maven left running, no half build kept
            _stop(proc)
            raise
    if code != 0:
        raise _failure(version, log)


def _remove_older_builds(target: Path) -> None:
    """Remove this release's builds of earlier harness sources (``<version>-<other hash>``)
    and work folders of builds killed more than a timeout ago; nothing else. O(folders)."""
    stem = target.name.rsplit("-", 1)[0]
    now = time.time()
    for path in target.parent.iterdir():
        if not path.is_dir() or path == target:
            continue
        older = path.name.rsplit("-", 1)[0] == stem and re.fullmatch(
            r"[0-9a-f]{12}", path.name[-12:]
        )
        killed = path.name.startswith(f".{stem.removesuffix('-client')}-") and (
            now - path.stat().st_mtime > BUILD_TIMEOUT_S
        )
        if older or killed:
            shutil.rmtree(path, ignore_errors=True)


def _stop(proc: subprocess.Popen) -> None:
    proc.kill()
    proc.wait()


def _failure(version: str, log: Path) -> Exception:
    text = log.read_text(errors="replace")
    if "COMPILATION ERROR" in text or "Compilation failure" in text:
        first = next((ln for ln in text.splitlines() if "[ERROR]" in ln and ".java" in ln), "")
        return HarnessBuildFailed(
            f"the harness does not compile against Pulsar {version}: "
            f"{first.replace('[ERROR]', '').strip()} (log: {log})"
        )
    if "No plugin found for prefix" in text or _OFFLINE.search(text):
        return MavenUnavailable(
            f"Maven Central is not reachable: Maven could not fetch its own plugins or Pulsar "
            f"{version}'s jars (log: {log})"
        )
    for pattern in _MISSING:
        m = pattern.search(text)
        if m:
            return MavenUnavailable(
                f"Maven Central does not serve {m.group(1)} (needed for Pulsar {version}; "
                f"log: {log})"
            )
    return HarnessBuildFailed(f"Maven failed for Pulsar {version} (log: {log})")
