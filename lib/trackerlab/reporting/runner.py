"""Execute notebooks with papermill, export standalone HTML, and publish them atomically.

For each selected notebook the run writes ``NAME.ipynb`` (executed), ``NAME.html``
(standalone, figures embedded, code hidden behind a toggle: :mod:`~trackerlab.reporting.export`),
the full tables as ``NAME.SLUG.csv`` and ``NAME.json`` (profile, parameters, answer,
headline figures, figure defects, run date, git commit, library versions) into a staging copy of the
output folder, rebuilds ``index.html`` and swaps the folder into place
(:mod:`trackerlab.reporting.publish`). A failing notebook leaves its previous report in
place; its executed copy goes to ``_failed/`` and the run exits non-zero.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import trackerlab.reporting.notebooks as nbs
from trackerlab.core.errors import UsageError
from trackerlab.core.params import check_text
from trackerlab.core.paths import cache_dir
from trackerlab.reporting.export import export_report
from trackerlab.reporting.index_page import FAILED_DIR, write_index
from trackerlab.reporting.profiles import get_profile, resolve
from trackerlab.reporting.publish import check_out, check_writable, publish_error, staged
from trackerlab.reporting.ranges import check_ranges, estimate_report
from trackerlab.reporting.tables import REPORT_NAME_ENV

KERNEL_NAME = "trackerlab-python"
KERNEL_LOG_ENV = "TRACKERLAB_KERNEL_LOG"


@dataclass
class Failure:
    """A notebook that raised: where, and the one-line reason."""

    name: str
    cell: str
    error: str


@dataclass
class ReportResult:
    """What a run published: the index path, the notebooks that succeeded and the failures."""

    index: Path
    published: list[str] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)


def plan(
    profile_name: str,
    only: Sequence[str] | None,
    notebooks_dir: Path,
    overrides: Sequence[str] = (),
) -> tuple[dict[str, nbs.NotebookInfo], dict[str, dict[str, object]]]:
    """Validate a run before executing anything: profile, names and parameter types."""
    found = nbs.discover(notebooks_dir)
    profile = get_profile(notebooks_dir, profile_name)
    selected = list(only) if only else list(found)
    unknown = [n for n in selected if n not in found]
    if unknown:
        raise UsageError(
            f"unknown notebook {unknown[0]!r}; choose from: {', '.join(found) or '(none)'}"
        )
    infos = {}
    for name, path in found.items():
        try:
            infos[name] = nbs.inspect(path)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    params = resolve(profile, infos, selected, overrides)
    check_ranges(params)
    return infos, params


def full_parameters(
    infos: dict[str, nbs.NotebookInfo], params: dict[str, dict[str, object]]
) -> dict[str, dict[str, object]]:
    """Each selected notebook's values: its defaults, then the resolved ones."""
    return {n: {p.name: p.default for p in infos[n].parameters} | v for n, v in params.items()}


def kernel_log() -> Path:
    """This run's kernel log: the kernels' own stderr (not the notebooks' output, which the
    executed copies keep), e.g. ZMQ errors when Ctrl-C stops a cell."""
    folder = cache_dir() / "logs"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"report-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"


@contextlib.contextmanager
def _private_kernel(log: Path) -> Iterator[None]:
    """Register a kernelspec that runs this interpreter, so reports never pick another Python.

    The kernel is :mod:`trackerlab.reporting.kernel` (IPython's, interruptible only inside
    cells, with the figure check loaded; its own stderr goes to ``log``, not the terminal). A
    user-level ``python3`` kernelspec (``~/.local/share/jupyter/kernels``) would otherwise win
    over this environment's; ``JUPYTER_PATH`` entries are searched first.
    """
    saved = os.environ.get("JUPYTER_PATH")
    with tempfile.TemporaryDirectory(prefix="trackerlab-kernel-") as folder:
        spec_dir = Path(folder) / "kernels" / KERNEL_NAME
        spec_dir.mkdir(parents=True)
        spec = {
            "argv": [
                sys.executable,
                "-m",
                "trackerlab.reporting.kernel",
                "-f",
                "{connection_file}",
                "--IPKernelApp.log_level=ERROR",
            ],
            "display_name": "Python 3 (trackerlab)",
            "language": "python",
            "env": {KERNEL_LOG_ENV: str(log)},
        }
        (spec_dir / "kernel.json").write_text(json.dumps(spec))
        os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in (folder, saved) if p)
        try:
            yield
        finally:
            if saved is None:
                os.environ.pop("JUPYTER_PATH", None)
            else:
                os.environ["JUPYTER_PATH"] = saved


@contextlib.contextmanager
def _sigint_guard() -> Iterator[threading.Event]:
    """Record Ctrl-C even if a library catches the KeyboardInterrupt it raises.

    The handler still raises KeyboardInterrupt (the default behaviour); the event lets
    :func:`run_report` refuse to publish after an interrupt whatever happened to it.
    """
    event = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield event
        return

    def handler(signum: int, frame: object) -> None:
        event.set()
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield event
    finally:
        signal.signal(signal.SIGINT, previous)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@contextlib.contextmanager
def _report_name(name: str) -> Iterator[None]:
    """Tell the kernel which report it renders (tables link their CSVs as ``NAME.SLUG.csv``)."""
    saved = os.environ.get(REPORT_NAME_ENV)
    os.environ[REPORT_NAME_ENV] = name
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(REPORT_NAME_ENV, None)
        else:
            os.environ[REPORT_NAME_ENV] = saved


def _restore_kernelspec(nb_path: Path, original: Path) -> None:
    """Give the executed copy the source notebook's kernelspec (not the private one)."""
    import nbformat

    nb = nbs.read_notebook(nb_path)
    src = nbs.read_notebook(original)
    if "kernelspec" in src.metadata:
        nb.metadata["kernelspec"] = src.metadata["kernelspec"]
    nbformat.write(nb, nb_path)


def _failed_cell(executed: Path, exc: Exception) -> str:
    """'cell N (In [k]): first line' with N counted 1-based in the *source* notebook."""
    index = getattr(exc, "cell_index", 0)
    nb = nbs.read_notebook(executed)
    injected = sum("injected-parameters" in c.metadata.get("tags", []) for c in nb.cells[:index])
    first_line = (getattr(exc, "source", "") or "").strip().splitlines()[:1]
    where = f"cell {index - injected + 1}"
    exec_count = getattr(exc, "exec_count", None)
    if exec_count:
        where += f" (In [{exec_count}])"
    return where + (f" `{first_line[0][:60]}`" if first_line else "")


def _keep_failure(
    info: nbs.NotebookInfo,
    work: Path,
    stage: Path,
    meta: dict[str, object],
    t0: float,
    cell: str,
    error: str,
) -> Failure:
    """Keep the executed copy (if papermill wrote one) and its metadata under ``_failed/``."""
    error = (error.splitlines() or [""])[0][:300]
    if work.exists():
        work.replace(stage / FAILED_DIR / f"{info.name}.ipynb")
    meta.update(finished=_now(), duration_s=time.monotonic() - t0, error=f"{cell}: {error}")
    (stage / FAILED_DIR / f"{info.name}.json").write_text(json.dumps(meta, indent=2, default=str))
    return Failure(info.name, cell, error)


def execute_one(
    info: nbs.NotebookInfo,
    params: dict[str, object],
    stage: Path,
    profile: str,
    provenance: Mapping[str, object],
) -> Failure | None:
    """Run one notebook into ``stage``; return a Failure instead of raising on cell errors."""
    import papermill
    from papermill.exceptions import PapermillExecutionError

    work = stage / FAILED_DIR / f".{info.name}.running.ipynb"
    work.parent.mkdir(exist_ok=True)
    started, t0 = _now(), time.monotonic()
    meta = {
        "name": info.name,
        "title": info.title,
        "profile": profile,
        "parameters": params,
        "started": started,
        **provenance,
    }
    try:
        with _report_name(info.name):
            papermill.execute_notebook(
                str(info.path),
                str(work),
                parameters=params,
                kernel_name=KERNEL_NAME,
                language="python",
                cwd=str(info.path.parent),
                progress_bar=False,
            )
    except PapermillExecutionError as exc:
        cell = _failed_cell(work, exc)
        error = f"{exc.ename}: {exc.evalue}"
        return _keep_failure(info, work, stage, meta, t0, cell, error)
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        return _keep_failure(info, work, stage, meta, t0, "the kernel", error)
    _restore_kernelspec(work, info.path)
    outputs = export_report(work, stage / f"{info.name}.html", info, params, profile)
    meta.update(finished=_now(), duration_s=time.monotonic() - t0, **outputs)
    work.replace(stage / f"{info.name}.ipynb")
    (stage / f"{info.name}.json").write_text(json.dumps(meta, indent=2, default=str))
    for stale in (stage / FAILED_DIR).glob(f"{info.name}.*"):
        stale.unlink()
    return None


def run_report(
    profile: str = "default",
    only: Sequence[str] | None = None,
    out: Path | str | None = None,
    notebooks_dir: Path | None = None,
    overrides: Sequence[str] = (),
    log: Callable[[str], None] = lambda msg: print(msg, file=sys.stderr, flush=True),
    allow_large: bool = False,
) -> ReportResult:
    """Execute, export and publish; see the module docstring for the guarantees.

    Before anything runs: names, types and stated ranges of the parameters
    (:mod:`trackerlab.reporting.ranges`), the output folder (:func:`check_out`: not empty,
    not the current folder...) and the cost guard (``allow_large`` goes past it).
    """
    from trackerlab.core.budget import check as check_budget
    from trackerlab.core.paths import notebooks_dir as default_notebooks
    from trackerlab.core.paths import reports_dir
    from trackerlab.core.provenance import git_commit, library_versions

    if only is not None:
        only = [check_text("--only", name) for name in only]
    notebooks_dir = Path(notebooks_dir or default_notebooks()).resolve()
    out = check_out(reports_dir() if out is None else out)
    infos, params = plan(profile, only, notebooks_dir, overrides)
    check_writable(out)
    check_budget(estimate_report(full_parameters(infos, params)), allow_large)
    provenance = {"git_commit": git_commit(), "versions": library_versions()}
    result = ReportResult(index=out / "index.html")
    try:
        with (
            _private_kernel(kernel_log()),
            _sigint_guard() as interrupted,
            staged(out, log) as stage,
        ):
            for i, name in enumerate(params, 1):
                log(f"[{i}/{len(params)}] {name} (profile {profile}) ...")
                t0 = time.monotonic()
                failure = execute_one(infos[name], params[name], stage, profile, provenance)
                if failure:
                    result.failures.append(failure)
                    log(f"[{i}/{len(params)}] {name} FAILED in {failure.cell}: {failure.error}")
                else:
                    result.published.append(name)
                    log(f"[{i}/{len(params)}] {name} ok ({time.monotonic() - t0:.1f} s)")
                if interrupted.is_set():  # a library swallowed the KeyboardInterrupt
                    raise KeyboardInterrupt
            failed_dir = stage / FAILED_DIR
            if failed_dir.is_dir() and not any(failed_dir.iterdir()):
                failed_dir.rmdir()
            write_index(stage)
            if interrupted.is_set():
                raise KeyboardInterrupt
    except OSError as exc:  # a full disk, a folder made read-only while rendering
        raise publish_error(exc, out) from None
    return result
