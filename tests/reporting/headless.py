"""Load a local page in Debian's headless Chromium and report what a reader would see.

:func:`load_page` starts ``chromium`` with the DevTools protocol on a pipe
(``--remote-debugging-pipe``: fd 3 in, fd 4 out, NUL-separated JSON), so nothing listens on
a port; every host name resolves to nothing (``--host-resolver-rules``), so a page cannot
reach the network. It opens one ``file://`` URL and returns the console errors, uncaught
exceptions, failed or non-local requests, the visible text and a full-page PNG.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--remote-debugging-pipe",
    "--host-resolver-rules=MAP * ~NOTFOUND",
)
WIDTH, MAX_HEIGHT = 1280, 12000


def chromium() -> str | None:
    """The Chromium executable, or None when Debian's ``chromium`` package is absent."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass
class Page:
    url: str
    errors: list[str] = field(default_factory=list)  # console errors, exceptions, failed loads
    requests: list[str] = field(default_factory=list)  # URLs other than file: and data:
    text: str = ""  # document.body.innerText
    png: bytes = b""  # full-page screenshot
    height: int = 0
    values: dict[str, object] = field(default_factory=dict)  # results of ``evaluate``


class _Pipe:
    """The DevTools protocol over Chromium's pipe: commands and the events they trigger."""

    def __init__(self, proc: subprocess.Popen, write_fd: int, read_fd: int) -> None:
        self.proc, self.write_fd, self.read_fd = proc, write_fd, read_fd
        self.buffer = b""
        self.events: list[dict] = []
        self.next_id = 0

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("chromium did not answer in time")
            ready, _, _ = select.select([self.read_fd], [], [], left)
            if ready:
                chunk = os.read(self.read_fd, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed its DevTools pipe")
                self.buffer += chunk
        message, _, self.buffer = self.buffer.partition(b"\0")
        return json.loads(message)

    def send(self, method: str, params: dict | None = None, session: str = "", timeout=30.0):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.write_fd, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == method for e in self.events):
            self.events.append(self._read_message(deadline))

    def settle(self, seconds: float) -> None:
        """Collect events for ``seconds`` more (late console messages, resource errors)."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                self.events.append(self._read_message(deadline))
            except TimeoutError:
                return


def _errors(events: list[dict]) -> tuple[list[str], list[str]]:
    errors, requests = [], []
    for e in events:
        method, params = e.get("method"), e.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
            errors.append(f"console.{params['type']}: {args}")
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            errors.append(f"exception: {details.get('text', '')} {details.get('exception', {})}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            errors.append(f"log: {entry.get('text', '')} {entry.get('url', '')}")
        elif method == "Network.loadingFailed":
            errors.append(f"failed load: {params.get('errorText', '')}")
        elif method == "Network.requestWillBeSent":
            url = params.get("request", {}).get("url", "")
            if not url.startswith(("file:", "data:", "about:")):
                requests.append(url)
    return errors, requests


def _high(fd: int) -> int:
    """``fd`` moved to a number of 10 or more."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return high


def load_page(
    path: Path,
    width: int = WIDTH,
    timeout: float = 60.0,
    evaluate: dict[str, str] | None = None,
) -> Page:
    """Open ``path`` in headless Chromium; see the module docstring. ``evaluate`` maps names
    to JavaScript expressions run in order after the load (their values in ``Page.values``),
    before the screenshot."""
    exe = chromium()
    if exe is None:
        raise FileNotFoundError("chromium is not installed")
    url = Path(path).resolve().as_uri()
    with tempfile.TemporaryDirectory(prefix="trackerlab-chromium-") as profile:
        to_chrome_r, to_chrome_w = os.pipe()
        from_chrome_r, from_chrome_w = os.pipe()
        # the child's ends above fd 9, so that the redirections to fds 3 and 4 cannot clobber them
        to_chrome_r, from_chrome_w = (_high(fd) for fd in (to_chrome_r, from_chrome_w))
        script = f'exec "$0" "$@" 3<&{to_chrome_r} 4>&{from_chrome_w}'
        with open(Path(profile).parent / f"{Path(profile).name}.log", "wb") as log:
            proc = subprocess.Popen(
                # bash, not sh: dash redirects single-digit fds only
                ["bash", "-c", script, exe, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                pass_fds=(to_chrome_r, from_chrome_w),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
            )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        pipe = _Pipe(proc, to_chrome_w, from_chrome_r)
        try:
            target = pipe.send("Target.createTarget", {"url": "about:blank"}, timeout=timeout)
            session = pipe.send(
                "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}
            )["sessionId"]
            for domain in ("Page", "Runtime", "Log", "Network"):
                pipe.send(f"{domain}.enable", session=session)
            metrics = {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False}
            pipe.send("Emulation.setDeviceMetricsOverride", metrics, session=session)
            pipe.events.clear()
            pipe.send("Page.navigate", {"url": url}, session=session)
            pipe.wait_for("Page.loadEventFired", timeout)
            pipe.settle(1.0)

            def run(expression: str) -> object:
                reply = pipe.send(
                    "Runtime.evaluate",
                    {"expression": expression, "returnByValue": True},
                    session=session,
                )
                return reply["result"].get("value")

            text = run("document.body.innerText") or ""
            values = {name: run(js) for name, js in (evaluate or {}).items()}
            size = pipe.send("Page.getLayoutMetrics", session=session)["cssContentSize"]
            height = min(int(size["height"]) + 1, MAX_HEIGHT)
            pipe.send(
                "Emulation.setDeviceMetricsOverride", {**metrics, "height": height}, session=session
            )
            shot = pipe.send(
                "Page.captureScreenshot", {"format": "png"}, session=session, timeout=timeout
            )
            errors, requests = _errors(pipe.events)
            page = Page(url, errors, requests, text, base64.b64decode(shot["data"]), height, values)
            with contextlib.suppress(RuntimeError, TimeoutError):
                pipe.send("Browser.close", timeout=5)
            return page
        finally:
            os.close(to_chrome_w)
            os.close(from_chrome_r)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            Path(f"{profile}.log").unlink(missing_ok=True)


def main() -> None:
    """``python -m tests.reporting.headless PAGE.html OUT.png``: print errors, save the PNG."""
    import sys

    page = load_page(Path(sys.argv[1]))
    Path(sys.argv[2]).write_bytes(page.png)
    print(f"{page.url}: {page.height} px, errors {page.errors}, requests {page.requests}")


if __name__ == "__main__":
    main()
