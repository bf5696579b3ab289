"""``trackerlab report`` and ``trackerlab notebooks``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from trackerlab.core.errors import UsageError

#: The reports ``--screenshots`` photographs besides the index (``--only`` replaces them).
SCREENSHOT_REPORTS = ("capacity_planner", "design_lab", "overview")
SCREENSHOT_LABELS = ("before", "after")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "report",
        help="execute the notebooks with papermill and publish reports/ atomically",
        description=(
            "Execute every notebook (or those named with --only) with the parameters of a "
            "profile from notebooks/profiles.yaml, write NAME.ipynb, NAME.html and index.html "
            "into the output folder, and swap it into place only when the run is over."
        ),
    )
    p.add_argument(
        "--profile", default="default", help="smoke, default or large (default: default)"
    )
    p.add_argument("--only", nargs="+", metavar="NAME", help="notebook names (file stems) to run")
    p.add_argument("--out", help="output folder (default: reports/)")
    p.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="[NB:]NAME=VALUE",
        help="override a parameter (VALUE is read as YAML: 10, 0.5, true, text)",
    )
    p.add_argument("--notebooks", type=Path, help="folder of notebooks (default: notebooks/)")
    p.add_argument(
        "--allow-large",
        action="store_true",
        help="run even when the estimated time or memory exceeds this machine",
    )
    p.add_argument(
        "--check",
        nargs="?",
        const="",
        metavar="FOLDER",
        help="render nothing: open every page of a rendered folder (default: reports/) in "
        "headless Chromium and list what reads badly (exit 1 on findings)",
    )
    p.add_argument(
        "--screenshots",
        nargs="?",
        const="",
        metavar="FOLDER",
        help="render nothing: write full-page PNGs (1280 px wide) of index.html and three "
        "reports (--only to choose) of a rendered folder (default: reports/) to "
        "reports/screenshots/NAME-LABEL.png",
    )
    p.add_argument("--label", choices=SCREENSHOT_LABELS, help="with --screenshots: before or after")
    p.set_defaults(func=run_report)

    n = subparsers.add_parser(
        "notebooks",
        help="list the notebooks, their parameters and defaults",
        description="List each notebook and its parameters (papermill's inspection).",
    )
    n.add_argument("--notebooks", type=Path, help="folder of notebooks (default: notebooks/)")
    n.add_argument("--profile", help="also show the values a profile sets")
    n.set_defaults(func=list_notebooks)


def run_report(args: argparse.Namespace) -> int:
    if args.check is not None and args.screenshots is not None:
        raise UsageError("report: --check and --screenshots are separate runs; give one")
    if args.check is not None:
        return run_check(args.check)
    if args.screenshots is not None:
        return run_screenshots(args.screenshots, args.label, args.only)
    if args.label is not None:
        raise UsageError("report: --label goes with --screenshots")
    from trackerlab.reporting.runner import run_report as run

    result = run(
        args.profile, args.only, args.out, args.notebooks, args.param, allow_large=args.allow_large
    )
    for failure in result.failures:
        print(
            f"trackerlab: notebook {failure.name} failed in {failure.cell}: {failure.error} "
            f"(executed copy: {result.index.parent / '_failed' / (failure.name + '.ipynb')})",
            file=sys.stderr,
        )
    print(result.index)
    return 1 if result.failures else 0


def _folder(value: str) -> Path:
    from trackerlab.core.paths import reports_dir

    folder = Path(value) if value else reports_dir()
    if not folder.is_dir():
        raise UsageError(f"report: folder {value or folder} does not exist (render it first)")
    return folder


def run_check(value: str) -> int:
    """``trackerlab report --check [FOLDER]``: one line per finding, then a summary line."""
    from trackerlab.reporting.browser_check import check_folder, pages_of

    folder = _folder(value)
    findings = check_folder(folder)
    for finding in findings:
        print(finding.line())
    pages = pages_of(folder)
    bad = len({f.report for f in findings})
    if findings:
        print(
            f"trackerlab: browser check of {folder}: {len(findings)} findings "
            f"in {bad} of {len(pages)} pages"
        )
        return 1
    print(f"trackerlab: browser check of {folder}: {len(pages)} pages, no findings")
    return 0


def run_screenshots(value: str, label: str | None, only: list[str] | None) -> int:
    """``trackerlab report --screenshots [FOLDER] --label before|after [--only NAME...]``."""
    from trackerlab.core.paths import reports_dir
    from trackerlab.reporting.browser_check import screenshots

    if label is None:
        raise UsageError("report: --screenshots needs --label before or --label after")
    folder = _folder(value)
    for path in screenshots(
        folder, only or SCREENSHOT_REPORTS, reports_dir() / "screenshots", label
    ):
        print(path)
    return 0


def list_notebooks(args: argparse.Namespace) -> int:
    from trackerlab.core.paths import notebooks_dir
    from trackerlab.reporting.notebooks import discover, inspect, papermill_parameters
    from trackerlab.reporting.profiles import get_profile

    folder = (args.notebooks or notebooks_dir()).resolve()
    profile = None
    if args.profile is not None:
        profile = get_profile(folder, args.profile)
    for name, path in discover(folder).items():
        inspect(path)  # a damaged notebook: one line, before papermill reads it
        print(
            f"{name}  ({path.relative_to(folder.parent) if folder.parent in path.parents else path})"
        )
        overrides = profile.notebooks.get(name, {}) if profile else {}
        params = papermill_parameters(path)
        if not params:
            print("    (no parameters)")
        for pname, p in params.items():
            line = f"    {pname} = {p['default']}"
            if profile is not None and pname in overrides:  # overrides come from a profile
                line += f"    [{profile.name}: {overrides[pname]!r}]"
            if p.get("help"):
                line += f"    # {p['help']}"
            print(line)
    return 0
