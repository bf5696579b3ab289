"""The ``trackerlab`` command line: argument parsing only, the work is in the library.

Each subcommand lives in ``trackerlab.commands.<module>`` with a ``register(subparsers)``
function, listed in :data:`COMMAND_MODULES`; heavy imports happen inside the command handlers, so ``trackerlab --help`` and
the error paths start fast. A :class:`~trackerlab.core.errors.UsageError` (and any argparse
error) becomes one line on stderr and exit code 2, and so does an ``OSError`` no command
turned into one (a full disk, a permission: the file and the reason); Ctrl-C exits with 130.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import NoReturn

import trackerlab.commands.bench as bench
import trackerlab.commands.broker as broker
import trackerlab.commands.jvm_check as jvm_check
import trackerlab.commands.plan as plan
import trackerlab.commands.pulsar as pulsar
import trackerlab.commands.report as report
import trackerlab.commands.reproduce as reproduce
import trackerlab.commands.simulate as simulate
import trackerlab.commands.size as size
import trackerlab.commands.sweep as sweep
from trackerlab.core.durable import os_error_text
from trackerlab.core.errors import UsageError, one_line

#: Modules that register subcommands, in help order.
COMMAND_MODULES = (
    plan, report, reproduce, size, jvm_check, pulsar, broker, simulate, bench, sweep,
)  # fmt: skip


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are UsageErrors (one line, exit 2), not usage dumps."""

    def error(self, message: str) -> NoReturn:
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
    for sub in parsers(parser):
        _show_defaults(sub)
    return parser


def parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """``parser`` and every subcommand parser below it, depth first."""
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                found += parsers(sub)
    return found


def shows_default(action: argparse.Action) -> bool:
    """Whether ``--help`` must state the option's default: every optional that takes a value."""
    return bool(action.option_strings) and action.nargs != 0 and not action.required


def _show_defaults(parser: argparse.ArgumentParser) -> None:
    """Append ``(default: ...)`` to each option's help that does not state its default, so
    ``--help`` shows every default (``none`` when the option is off unless given)."""
    for action in parser._actions:
        text = action.help or ""
        if not shows_default(action) or text == argparse.SUPPRESS or "default" in text:
            continue
        shown = "none" if action.default is None else "%(default)s"
        action.help = f"{text} (default: {shown})" if text else f"default: {shown}"


#: A value argparse would take for an option: ``-5k/s``, ``-2%``, ``-.5``.
_NEGATIVE_VALUE = re.compile(r"-[0-9.]")


def attach_negative_values(parser: argparse.ArgumentParser, argv: Sequence[str]) -> list[str]:
    """``--rate -5k/s`` -> ``--rate=-5k/s`` for every option that takes a value, so that a
    negative value reaches the option's own check (one line naming its range) instead of
    argparse's "expected one argument". O(len(argv) + options)."""
    takes_value = {
        name
        for sub in parsers(parser)
        for action in sub._actions
        if action.option_strings and action.nargs != 0
        for name in action.option_strings
    }
    out: list[str] = []
    tokens = iter(argv)
    for token in tokens:
        if token == "--":
            out.append(token)
            out.extend(tokens)
            break
        if token in takes_value:
            value = next(tokens, None)
            if value is not None and _NEGATIVE_VALUE.match(value):
                out.append(f"{token}={value}")
                continue
            out.append(token)
            if value is not None:
                out.append(value)
            continue
        out.append(token)
    return out


def encodable_output() -> None:
    """Make every later write to stdout and stderr encodable under any locale (``LC_ALL=C``,
    ``PYTHONIOENCODING=ascii``): a character the encoding lacks ("\u2013", "\u00b1") is written
    as its ``\\u`` escape instead of raising UnicodeEncodeError. O(1)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    encodable_output()
    try:
        parser = build_parser()
        argv = sys.argv[1:] if argv is None else argv
        args = parser.parse_args(attach_negative_values(parser, argv))
        if not getattr(args, "func", None):
            parser.print_help(sys.stderr)
            return 2
        return int(args.func(args) or 0)
    except UsageError as exc:
        print(one_line(exc), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("trackerlab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:
        print(one_line(os_error_text(exc)), file=sys.stderr)
        return 2
