"""Check that a Java runtime Spark can use (17 or newer; 17 and 21 are tested) is present.

Stdlib only, so the Makefile can run it with the system ``python3`` before any virtual
environment exists: ``python3 lib/trackerlab/core/java_runtime.py`` prints one line and exits 1
when Java is missing or too old. The Spark session builder calls :func:`require_java`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

MIN_JAVA = 17
INSTALL_HINT = (
    "install a Java 17 or 21 JDK (Debian/Ubuntu: apt-get install openjdk-17-jdk-headless; "
    "conda: conda install -c conda-forge openjdk=17) or set JAVA_HOME"
)


class JavaMissing(RuntimeError):
    """No usable Java runtime; the message is one line and says how to install one."""


def java_executable() -> str | None:
    """``$JAVA_HOME/bin/java`` if set (as pyspark does), else ``java`` on PATH."""
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = os.path.join(home, "bin", "java")
        if os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("java")


def parse_java_major(version_output: str) -> int | None:
    """Major version from ``java -version`` output: '"17.0.15"' -> 17, '"1.8.0_392"' -> 8."""
    match = re.search(r'version "(\d+)(?:\.(\d+))?', version_output)
    if not match:
        return None
    major = int(match.group(1))
    if major == 1 and match.group(2):
        major = int(match.group(2))
    return major


def java_major() -> tuple[str, int | None]:
    """The Java executable and its major version; raises JavaMissing if there is none."""
    exe = java_executable()
    if exe is None:
        raise JavaMissing(f"java not found: Spark needs Java {MIN_JAVA} or 21; {INSTALL_HINT}")
    try:
        proc = subprocess.run([exe, "-version"], capture_output=True, text=True, timeout=60)
    except OSError as exc:
        raise JavaMissing(f"cannot run {exe} ({exc}); {INSTALL_HINT}") from exc
    return exe, parse_java_major(proc.stderr + proc.stdout)


def require_java() -> int:
    """Return the Java major version, or raise JavaMissing if it is absent or below 17."""
    exe, major = java_major()
    if major is None:
        raise JavaMissing(
            f"cannot read the version of {exe}; Spark needs Java 17 or 21; {INSTALL_HINT}"
        )
    if major < MIN_JAVA:
        raise JavaMissing(f"{exe} is Java {major}, but Spark needs Java 17 or 21; {INSTALL_HINT}")
    return major


def main() -> int:
    try:
        require_java()
    except JavaMissing as exc:
        print(f"trackerlab: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
