"""The ``trackerlab`` command line: argument parsing only, the work is in the library.

Each subcommand lives in ``trackerlab.commands.<module>`` with a ``register(subparsers)``
function, listed in :data:`COMMAND_MODULES`; heavy imports happen inside the command handlers, so ``trackerlab --help`` and
the error paths start fast. A :class:`~trackerlab.errors.UsageError` (and any argparse
error) becomes one line on stderr and exit code 2, and so does an ``OSError`` no command
turned into one (a full disk, a permission: the file and the reason); Ctrl-C exits with 130.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from trackerlab.commands import bench, jvm_check, plan, report, reproduce, simulate, size, sweep
from trackerlab.durable import os_error_text
from trackerlab.errors import UsageError

#: Modules that register subcommands, in help order.
COMMAND_MODULES = (plan, report, reproduce, size, jvm_check, simulate, bench, sweep)


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are UsageErrors (one line, exit 2), not usage dumps."""

    def error(self, message: str) -> None:  # type: ignore[override]
        command = self.prog.removeprefix("trackerlab").strip()
        raise UsageError(f"{command}: {message}" if command else message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="trackerlab",
        allow_abbrev=False,
        description="Model, measure and report Apache Pulsar's message-tracking structures.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module in COMMAND_MODULES:
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help(sys.stderr)
            return 2
        return int(args.func(args) or 0)
    except UsageError as exc:
        print(f"trackerlab: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("trackerlab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:
        print(f"trackerlab: {os_error_text(exc)}", file=sys.stderr)
        return 2
