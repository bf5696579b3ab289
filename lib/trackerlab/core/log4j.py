"""The log4j2 configurations of the JVMs trackerlab starts.

- :func:`quiet_log4j2` (the JVM probe): messages to stderr at ERROR only;
- :func:`file_log4j2` (Spark sessions): messages at WARN to the file named by the JVM's
  ``trackerlab.log`` system property (the session log), nothing on the terminal: a sweep
  prints its own progress and, on failure, one line naming that file;
- :func:`console_log4j2` (the broker and its workload client): one console stream, which
  their launchers send to the run's log files.

The files are written once to the cache folder (:func:`trackerlab.core.paths.cache_dir`).
:func:`py4j_messages_to` sends the Python side's messages (py4j's) to a log file as well.
"""

from __future__ import annotations

import logging
from pathlib import Path

from trackerlab.core.durable import atomic_write_bytes
from trackerlab.core.paths import cache_dir

_SHELL_LOGGERS = """\
# the shell loggers at ERROR: no "Setting default log level" banner
logger.repl.name = org.apache.spark.repl.Main
logger.repl.level = error
logger.gateway.name = org.apache.spark.api.python.PythonGatewayServer
logger.gateway.level = error
"""
_LOG4J2 = (
    """\
# trackerlab: Spark's own messages at ERROR only (sweeps print their own progress)
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n%ex
"""
    + _SHELL_LOGGERS
)
_LOG4J2_FILE = (
    """\
# trackerlab: Spark's own messages to the session log (-Dtrackerlab.log=FILE), none on the
# terminal; a failed sweep prints one line naming the file
rootLogger.level = warn
rootLogger.appenderRef.file.ref = file
appender.file.type = File
appender.file.name = file
appender.file.fileName = ${sys:trackerlab.log:-/dev/null}
appender.file.append = true
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n%ex
"""
    + _SHELL_LOGGERS
)


def console_log4j2(header: str, level: str, target: str) -> str:
    """A log4j2 configuration sending messages at ``level`` and above to one console stream
    (``SYSTEM_OUT`` or ``SYSTEM_ERR``), after a ``# header`` comment line: the broker's and
    the workload client's (their launchers send those streams to the run's log files)."""
    return f"""\
# {header}
rootLogger.level = {level}
rootLogger.appenderRef.console.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = {target}
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{{ISO8601}} %-5p [%t] %c{{1}} - %m%n%ex
"""


def _written(name: str, text: str) -> Path:
    path = cache_dir() / "spark" / name
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, text.encode())
    return path


def quiet_log4j2() -> Path:
    """The console configuration's path, written (atomically) when missing or outdated."""
    return _written("log4j2-trackerlab.properties", _LOG4J2)


def file_log4j2() -> Path:
    """The session-log configuration's path (see the module docstring)."""
    return _written("log4j2-trackerlab-file.properties", _LOG4J2_FILE)


def py4j_messages_to(path: Path) -> None:
    """py4j logs through the root logger (``logging.exception``, e.g. a Ctrl-C inside a call),
    which without a handler prints a traceback on the terminal: when the root logger has no
    handler, send its records to ``path``. O(1)."""
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.FileHandler(path)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
