"""``spark-submit`` entry point of ``trackerlab sweep`` (same options)::

    PYSPARK_PYTHON=.venv/bin/python .venv/bin/spark-submit --driver-memory 3g \\
        [--master spark://HOST:7077] lib/trackerlab/commands/spark_submit.py --profile default

spark-submit configures the master (and memory, if given), so the session builder keeps
them and only adds trackerlab's defaults. Executors on other machines need the same Python
packages (numpy, pandas, pyarrow, pyroaring, pympler, sortedcontainers); the session ships
the trackerlab package itself to non-local masters.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":
    # Run as a script, Python puts this file's folder first on sys.path, where the command
    # modules' names (``pulsar``, ``report``, ``sweep``) would shadow other packages: put the
    # folder holding the trackerlab package there instead.
    lib = Path(__file__).resolve().parents[2]
    here = str(Path(__file__).resolve().parent)
    sys.path[:] = [p for p in sys.path if p and Path(p).resolve() != Path(here)]
    sys.path.insert(0, str(lib))
    from trackerlab.commands.cli import main

    sys.exit(main(["sweep", *sys.argv[1:]]))
