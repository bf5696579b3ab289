"""``trackerlab report`` and ``trackerlab notebooks``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


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


def list_notebooks(args: argparse.Namespace) -> int:
    from trackerlab.paths import notebooks_dir
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
            if pname in overrides:
                line += f"    [{profile.name}: {overrides[pname]!r}]"
            if p.get("help"):
                line += f"    # {p['help']}"
            print(line)
    return 0
