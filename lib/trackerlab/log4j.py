"""The log4j2 configuration of every JVM trackerlab starts (Spark sessions, the JVM probe).

Spark's own messages go to stderr at ERROR only: sweeps and checks print their own progress.
The file is written once to the cache folder (:func:`trackerlab.paths.cache_dir`).
"""

from __future__ import annotations

from pathlib import Path

from trackerlab.paths import cache_dir

_LOG4J2 = """\
# trackerlab: Spark's own messages at ERROR only (sweeps print their own progress)
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n%ex
# the shell loggers at the root's level: no "Setting default log level" banner
logger.repl.name = org.apache.spark.repl.Main
logger.repl.level = error
logger.gateway.name = org.apache.spark.api.python.PythonGatewayServer
logger.gateway.level = error
"""


def quiet_log4j2() -> Path:
    """The configuration file's path, written (atomically) when missing or outdated."""
    path = cache_dir() / "spark" / "log4j2-trackerlab.properties"
    if not path.exists() or path.read_text() != _LOG4J2:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{id(path)}")
        tmp.write_text(_LOG4J2)
        tmp.replace(path)
    return path
