"""``make lab`` starts JupyterLab for a normal user and for root, on the repository, opening
the capacity planner notebook.

The server is started on 127.0.0.1 with a token and no browser, asked for its status and
for the folders it serves, then stopped (its own process group). The ``--allow-root`` flag
is checked for root and for an unprivileged user (``make -n``); the unprivileged user also
starts the server when it can run the environment's interpreter. The unprivileged user runs
``make`` in a copy of what it reads (:func:`_copy_for_nobody`): the clone itself may lie in a
folder other users cannot enter (``mktemp -d``, root's home).
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import REPO

NOBODY = 65534
LAB_NOTEBOOK = "notebooks/capacity_planner.ipynb"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as reply:
            return reply.status, reply.read()
    except OSError:
        return 0, b""


def _as_nobody(command: list[str]) -> list[str]:
    return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *command]


def _env(home) -> dict[str, str]:
    home.mkdir(exist_ok=True)
    home.chmod(0o777)
    return {
        **os.environ,
        "HOME": str(home),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTER_DATA_DIR": str(home / "data"),
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "IPYTHONDIR": str(home / "ipython"),
    }


def _nobody_can_run_the_environment() -> bool:
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        return False
    jupyter = str(Path(sys.executable).parent / "jupyter")  # run by a shell, as make does
    probe = subprocess.run(
        _as_nobody(["sh", "-c", 'exec "$0" --version', jupyter]), capture_output=True, cwd="/"
    )
    return probe.returncode == 0


def _copy_for_nobody(folder: Path) -> tuple[Path, list[str]]:
    """What ``make lab`` reads (Makefile, pyproject.toml, notebooks/, an empty reports/),
    copied into ``folder`` where ``nobody`` can read it, and the make variables that point it
    at this test's environment (``VENV``) with an up-to-date stamp (``STAMP``)."""
    checkout = folder / "checkout"
    checkout.mkdir()
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy2(REPO / name, checkout / name)  # keeps pyproject.toml's time
    shutil.copytree(REPO / "notebooks", checkout / "notebooks")
    (checkout / "reports").mkdir()
    stamp = checkout / ".trackerlab-installed"
    stamp.touch()  # newer than the copied pyproject.toml: make installs nothing
    for path in [checkout, *checkout.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return checkout, [f"VENV={sys.prefix}", f"STAMP={stamp}"]


def _lab_command(
    port: int, token: str, dry: bool = False, folder: Path = REPO, make_vars: tuple = ()
) -> list[str]:
    args = (
        f"--no-browser --ServerApp.ip=127.0.0.1 --ServerApp.port={port} "
        f"--IdentityProvider.token={token}"
    )
    return [
        "make",
        "--no-print-directory",
        *(["-n"] if dry else []),
        "-C",
        str(folder),
        "lab",
        *make_vars,
        f"LAB_ARGS={args}",
    ]


def _serve_and_check(tmp_path, port: int, token: str, command: list[str], home=None) -> None:
    log = tmp_path / "lab.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            command,
            env=_env(home or tmp_path / "home"),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        status, body = 0, b""
        deadline = time.monotonic() + 180
        while status != 200 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(1)
            status, body = _get(f"http://127.0.0.1:{port}/api/status?token={token}")
        text = log.read_text(errors="replace")
        assert status == 200, f"JupyterLab did not start:\n{text}"
        assert json.loads(body)["started"]
        assert "Running as root is not recommended" not in text
        assert _get(f"http://127.0.0.1:{port}/lab?token={token}")[0] == 200
        for folder in ("notebooks", "reports"):  # rooted at the repository
            code, listing = _get(f"http://127.0.0.1:{port}/api/contents/{folder}?token={token}")
            assert code == 200 and json.loads(listing)["type"] == "directory"
        assert f"trackerlab: opening {LAB_NOTEBOOK}" in text
        code, notebook = _get(f"http://127.0.0.1:{port}/api/contents/{LAB_NOTEBOOK}?token={token}")
        assert code == 200 and json.loads(notebook)["type"] == "notebook"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


@pytest.mark.slow
def test_make_lab_serves_the_repository_for_this_user(tmp_path):
    port, token = _free_port(), "trackerlab-test"
    _serve_and_check(tmp_path, port, token, _lab_command(port, token))


@pytest.mark.slow
def test_make_lab_serves_the_repository_for_an_unprivileged_user(tmp_path, shared_tmp):
    if not _nobody_can_run_the_environment():
        pytest.skip("needs root, setpriv and an environment interpreter other users can run")
    port, token = _free_port(), "trackerlab-test"
    checkout, make_vars = _copy_for_nobody(shared_tmp)
    command = _as_nobody(_lab_command(port, token, folder=checkout, make_vars=tuple(make_vars)))
    _serve_and_check(tmp_path, port, token, command, shared_tmp / "home")


def test_allow_root_only_for_root(tmp_path, shared_tmp):
    runs = {os.geteuid() == 0: (REPO, _lab_command(0, "t", dry=True), tmp_path / "home")}
    if os.geteuid() == 0 and shutil.which("setpriv"):
        checkout, make_vars = _copy_for_nobody(shared_tmp)
        command = _lab_command(0, "t", dry=True, folder=checkout, make_vars=tuple(make_vars))
        runs[False] = (checkout, _as_nobody(command), shared_tmp / "home")
    for is_root, (folder, command, home) in runs.items():
        out = subprocess.run(
            command, env=_env(home), cwd=folder, capture_output=True, text=True, check=True
        ).stdout
        assert f'--ServerApp.root_dir="{folder.resolve()}"' in out  # make's $(CURDIR)
        assert f"--IdentityProvider.token=t {LAB_NOTEBOOK}" in out  # LAB_ARGS kept
        assert ("--allow-root" in out) is is_root, out
