"""The kernel ``trackerlab report`` runs notebooks in: IPython's, with three changes.

1. **Interrupts reach cells only.** papermill asks for ``kernel_info`` after the last cell
   and returns as soon as the reply arrives; jupyter_client then interrupts the kernel
   (SIGINT) before asking it to shut down. ipykernel makes SIGINT raise
   ``KeyboardInterrupt`` while it handles *any* shell request, so when the signal landed
   before the ``kernel_info`` handler had returned, the kernel logged
   ``[IPKernelApp] ERROR | KeyboardInterrupt caught in kernel.`` into a successful run's
   log (about one run in ten). Here SIGINT raises only while a cell executes
   (``execute_request``); other requests keep the kernel's idle handling (ignored), so Ctrl-C
   and nbclient's timeouts still stop a running cell.
2. **Figures are checked.** :mod:`trackerlab.reporting.figure_check` is loaded as an IPython
   extension, so each displayed figure carries its defects for the report's metadata.
3. **Its stderr goes to the run's log.** File descriptor 2 points at
   ``$TRACKERLAB_KERNEL_LOG`` (when set): the notebooks' own output reaches the executed
   copies through the kernel's messages either way; the log receives the kernel's own
   complaints, such as the ZMQ errors of a kernel stopped by Ctrl-C in the middle of a cell,
   which would otherwise print tracebacks on the terminal of a run meant to say "interrupted".

Run as ``python -m trackerlab.reporting.kernel -f CONNECTION_FILE`` (the report runner's
private kernelspec).
"""

from __future__ import annotations

import os
import signal
import sys

from ipykernel.ipkernel import IPythonKernel
from ipykernel.kernelapp import IPKernelApp

__all__ = ["ReportKernel", "main"]

#: IPython extensions every report kernel loads.
EXTENSIONS = ("trackerlab.reporting.figure_check",)
#: Where the kernel's own stderr goes (set by the report runner).
LOG_ENV = "TRACKERLAB_KERNEL_LOG"


class ReportKernel(IPythonKernel):
    """IPython's kernel, interruptible only while it executes a cell."""

    def _current_msg_type(self) -> str:
        parent = self.get_parent("shell") or {}
        return str(parent.get("header", {}).get("msg_type", ""))

    def pre_handler_hook(self) -> None:
        """ipykernel installs ``default_int_handler`` around every shell handler; keep the
        current (idle) handler for anything but a cell execution."""
        if self._current_msg_type() == "execute_request":
            super().pre_handler_hook()
        else:
            self.saved_sigint_handler = signal.getsignal(signal.SIGINT)


def _stderr_to_log() -> None:
    log = os.environ.get(LOG_ENV)
    if log:
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(fd, 2)
        os.close(fd)
        sys.stderr = open(2, "w", closefd=False, buffering=1)  # noqa: SIM115 - the process's


def main() -> None:
    """Start the kernel (``IPKernelApp`` with :class:`ReportKernel` and the extensions)."""
    _stderr_to_log()
    IPKernelApp.launch_instance(kernel_class=ReportKernel, extra_extensions=list(EXTENSIONS))


if __name__ == "__main__":
    main()
