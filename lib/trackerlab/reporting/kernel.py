"""The IPython kernel of ``trackerlab report``, with its stderr in the run's log file.

``python -m trackerlab.reporting.kernel -f CONNECTION_FILE ...`` points file descriptor 2 at
``$TRACKERLAB_KERNEL_LOG`` (when set) and runs ``ipykernel_launcher`` with the same
arguments. The notebooks' own output reaches the executed copies through the kernel's
messages either way; what the log receives is the kernel's own complaints, such as the
ZMQ errors of a kernel stopped by Ctrl-C in the middle of a cell, which would otherwise
print tracebacks on the terminal of a run that is only meant to say "interrupted".
"""

from __future__ import annotations

import os
import runpy
import sys


def main() -> None:
    log = os.environ.get("TRACKERLAB_KERNEL_LOG")
    if log:
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(fd, 2)
        os.close(fd)
        sys.stderr = open(2, "w", closefd=False, buffering=1)  # noqa: SIM115 - the process's
    sys.argv[0] = "ipykernel_launcher"
    runpy.run_module("ipykernel_launcher", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
