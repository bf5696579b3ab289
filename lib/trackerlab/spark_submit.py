"""``spark-submit`` entry point of ``trackerlab sweep`` (same options)::

    PYSPARK_PYTHON=.venv/bin/python .venv/bin/spark-submit --driver-memory 3g \\
        [--master spark://HOST:7077] lib/trackerlab/spark_submit.py --profile default

spark-submit configures the master (and memory, if given), so the session builder keeps
them and only adds trackerlab's defaults. Executors on other machines need the same Python
packages (numpy, pandas, pyarrow, pyroaring, pympler, sortedcontainers); the session ships
the trackerlab package itself to non-local masters.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":
    lib = Path(__file__).resolve().parents[1]
    if str(lib) not in sys.path:
        sys.path.insert(0, str(lib))
    from trackerlab.cli import main

    sys.exit(main(["sweep", *sys.argv[1:]]))
