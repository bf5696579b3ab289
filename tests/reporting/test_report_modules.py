"""The per-report display modules (design_lab_tables, receiver_queue_tables, massive_tables)
load with :mod:`trackerlab.reporting` in the report kernel before ``%matplotlib inline``:
importing them must not import pyplot, or it picks a non-inline backend and a report's
``plt.show()`` displays nothing (its figures vanish from the page)."""

from __future__ import annotations

import subprocess
import sys


def test_importing_reporting_does_not_import_pyplot():
    code = (
        "import sys, trackerlab.reporting as r\n"
        "assert r.design_lab_tables and r.receiver_queue_tables and r.massive_tables\n"
        "print('matplotlib.pyplot' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
