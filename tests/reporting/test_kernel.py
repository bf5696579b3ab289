"""The report kernel: an interrupt that lands outside a cell logs nothing; cells stay interruptible.

papermill asks for ``kernel_info`` after the last cell and jupyter_client interrupts the
kernel right after the reply, before shutting it down. The test widens that window
deterministically: the kernel sleeps 1 s inside its ``kernel_info`` handler after replying,
and the client interrupts as soon as the reply arrives. IPython's own kernel logs
``KeyboardInterrupt caught in kernel`` (the ERROR line of report logs); the report kernel
does not.
"""

import json
import subprocess
import sys
import time

import pytest
from jupyter_client import KernelManager

KERNEL = """
import inspect, time
from ipykernel.kernelapp import IPKernelApp
from {module} import {base} as Base

class SlowKernelInfo(Base):
    async def kernel_info_request(self, stream, ident, parent):
        result = super().kernel_info_request(stream, ident, parent)
        if inspect.isawaitable(result):
            await result
        time.sleep(1.0)  # still inside the handler, after the reply went out

IPKernelApp.launch_instance(kernel_class=SlowKernelInfo)
"""


def _start(tmp_path, module, base=None):
    """A kernel of ``module`` (its ``base`` kernel class slowed down, if given)."""
    spec = tmp_path / "kernels" / "probe"
    spec.mkdir(parents=True)
    run = ["-c", KERNEL.format(module=module, base=base)] if base else ["-m", module]
    argv = [sys.executable, *run, "-f", "{connection_file}", "--IPKernelApp.log_level=ERROR"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "language": "python"}))
    km = KernelManager(kernel_name="probe")
    km.kernel_spec_manager.kernel_dirs.insert(0, str(tmp_path / "kernels"))
    log = open(tmp_path / "kernel.log", "w")  # noqa: SIM115 - closed below
    km.start_kernel(stderr=log, stdout=log)
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    return km, kc, log


def _stop(tmp_path, km, kc, log) -> str:
    kc.stop_channels()
    km.shutdown_kernel(now=False)
    log.close()
    return (tmp_path / "kernel.log").read_text()


@pytest.mark.parametrize(
    ("module", "base", "logs_error"),
    [
        ("ipykernel.ipkernel", "IPythonKernel", True),  # the bug this kernel fixes
        ("trackerlab.reporting.kernel", "ReportKernel", False),
    ],
)
def test_interrupt_after_kernel_info_logs_no_error(tmp_path, module, base, logs_error):
    km, kc, log = _start(tmp_path, module, base)
    try:
        kc.kernel_info(reply=True, timeout=30)
        km.interrupt_kernel()  # what shutdown_kernel does first
        time.sleep(1.5)
    finally:
        text = _stop(tmp_path, km, kc, log)
    assert ("KeyboardInterrupt caught in kernel" in text) == logs_error, text


def test_report_kernel_cells_stay_interruptible(tmp_path):
    km, kc, log = _start(tmp_path, "trackerlab.reporting.kernel")
    try:
        msg_id = kc.execute("import time\ntime.sleep(30)")
        time.sleep(2.0)
        t0 = time.monotonic()
        km.interrupt_kernel()
        reply = kc.get_shell_msg(timeout=20)
        while reply["parent_header"].get("msg_id") != msg_id:  # earlier kernel_info replies
            reply = kc.get_shell_msg(timeout=20)
        assert reply["content"]["status"] == "error"
        assert reply["content"]["ename"] == "KeyboardInterrupt"
        assert time.monotonic() - t0 < 10
    finally:
        _stop(tmp_path, km, kc, log)


def test_importing_the_report_kernel_leaves_matplotlib_unconfigured():
    """The kernel module must not import matplotlib: the inline backend is set later."""
    code = (
        "import sys, trackerlab.reporting.kernel, trackerlab.reporting.runner; "
        "print('matplotlib' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
