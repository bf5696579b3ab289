"""YAML for user files (sweep grids, report profiles, ``-p`` values), with bounds.

``yaml.safe_load`` builds no arbitrary objects, but it still expands aliases and recurses
once per nesting level, so a 1 kB "billion laughs" file (anchors of anchors) or a few
thousand ``[`` exhaust memory or the stack. :class:`BoundedLoader` is a ``SafeLoader`` that
refuses, before constructing anything:

- more than :data:`MAX_ALIASES` aliases (``*name``) in a document, or an alias inside its
  own anchor (``&a [*a]``: a value that contains itself);
- nesting deeper than :data:`MAX_DEPTH` collections;
- more than :data:`MAX_NODES` nodes once aliases are expanded (what a consumer iterating the
  data would visit);
- a text longer than :data:`MAX_BYTES`.

:func:`load` returns the data or raises one :class:`~trackerlab.core.errors.UsageError` line
naming the file and line. Core layer: PyYAML only.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

import yaml

from trackerlab.core.errors import UsageError

MAX_ALIASES = 16
MAX_DEPTH = 32
MAX_NODES = 100_000
MAX_BYTES = 1 << 20
#: Longest integer a document may hold (Python refuses past 4300 digits with a ValueError).
MAX_INT_DIGITS = 100
#: Deepest JSON nesting :func:`load_json` parses (a notebook is about 6 deep, a manifest 3).
MAX_JSON_DEPTH = 64


class FileRefused(UsageError):
    """A file the bounded reader refuses; ``reason`` is what is wrong, without the file."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class YamlLimit(yaml.MarkedYAMLError):
    """A document beyond one of the loader's bounds."""


class BoundedLoader(yaml.SafeLoader):
    """SafeLoader with bounds on aliases, nesting and expanded size (module docstring)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._aliases = 0
        self._depth = 0
        self._open: set[str] = set()  # anchors whose value is being composed

    def compose_node(self, parent: Any, index: Any) -> yaml.Node:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise YamlLimit(
                    problem=f"more than {MAX_ALIASES} aliases", problem_mark=event.start_mark
                )
            if event.anchor in self._open:  # `&a [*a]`: a value that contains itself
                raise YamlLimit(
                    problem=f"alias *{event.anchor} inside its own anchor (a recursive value)",
                    problem_mark=event.start_mark,
                )
        anchor = getattr(event, "anchor", None) if not isinstance(event, yaml.AliasEvent) else None
        self._depth += 1
        if anchor is not None:
            self._open.add(anchor)
        try:
            if self._depth > MAX_DEPTH:
                raise YamlLimit(
                    problem=f"nested deeper than {MAX_DEPTH} levels", problem_mark=event.start_mark
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1
            self._open.discard(anchor)

    def get_single_node(self) -> yaml.Node | None:
        node = super().get_single_node()
        if node is not None:
            _check_expanded(node)
        return node

    def construct_bounded_int(self, node: yaml.ScalarNode) -> int:
        """An int scalar of at most :data:`MAX_INT_DIGITS` digits (``1`` x 5000 is refused,
        not a ValueError from ``int()``). O(len(value))."""
        digits = sum(c.isdigit() for c in str(node.value))
        if digits > MAX_INT_DIGITS:
            raise YamlLimit(
                problem=f"an integer of {digits} digits (at most {MAX_INT_DIGITS})",
                problem_mark=node.start_mark,
            )
        return super().construct_yaml_int(node)


BoundedLoader.add_constructor("tag:yaml.org,2002:int", BoundedLoader.construct_bounded_int)


def _check_expanded(root: yaml.Node) -> None:
    """Refuse a graph of more than :data:`MAX_NODES` nodes counted with aliases expanded.
    O(distinct nodes): each node's expanded count is computed once."""
    weight: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if id(node) in weight:
            continue
        children = _children(node)
        if not done:
            stack.append((node, True))
            stack.extend((c, False) for c in children if id(c) not in weight)
            continue
        total = 1 + sum(weight.get(id(c), 0) for c in children)
        if total > MAX_NODES:
            raise YamlLimit(
                problem=f"more than {MAX_NODES:,} values once aliases are expanded",
                problem_mark=node.start_mark,
            )
        weight[id(node)] = total


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def read_user_file(path: str | Path, what: str, limit: int = MAX_BYTES) -> bytes:
    """The bytes of a file, read at most ``limit`` bytes: :class:`FileRefused` (one line
    naming ``what`` and the file) for a missing file, a folder, a device or pipe (``/dev/zero``
    would never end, a FIFO would hang), a file over the limit, or an unreadable one. The
    open does not block and the type is checked on the opened descriptor, so a file swapped
    for a FIFO after a check is still refused. O(limit)."""
    path = Path(path)

    def refuse(reason: str, message: str = "") -> FileRefused:
        return FileRefused(message or f"{what}: {path} {reason}", reason)

    def unreadable(exc: OSError) -> FileRefused:
        reason = (exc.strerror or type(exc).__name__).lower()
        return refuse(f"unreadable ({reason})", f"{what}: cannot read {path} ({reason})")

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise refuse("missing", f"{what}: file {path} not found") from None
    except OSError as exc:
        raise unreadable(exc) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise refuse("is a folder, not a file")
        if not stat.S_ISREG(mode):
            raise refuse("is not a regular file (a device, pipe or socket)")
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(limit + 1)
    except OSError as exc:
        raise unreadable(exc) from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise refuse(f"is larger than {limit >> 10} KiB; refused")
    return data


def read_user_text(path: str | Path, what: str, limit: int = MAX_BYTES) -> str:
    """:func:`read_user_file` decoded as UTF-8 (:class:`FileRefused` when it is not)."""
    try:
        return read_user_file(path, what, limit).decode("utf-8")
    except UnicodeDecodeError:
        raise FileRefused(f"{what}: {path} is not UTF-8 text", "is not UTF-8 text") from None


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def check_json_depth(text: str, name: str) -> None:
    """:class:`FileRefused` ``NAME is nested deeper than ...`` for JSON text nested
    deeper than :data:`MAX_JSON_DEPTH` (brackets inside strings do not count), checked
    without parsing (the parsers recurse once per level). O(len(text))."""
    depth = 0
    for token in _JSON_TOKEN.finditer(text):
        bracket = token.group()
        if bracket in ("[", "{"):
            depth += 1
            if depth > MAX_JSON_DEPTH:
                reason = f"is nested deeper than {MAX_JSON_DEPTH} levels; refused"
                raise FileRefused(f"{name} {reason}", reason)
        elif bracket in ("]", "}"):
            depth -= 1


def load_json(text: str | bytes, name: str) -> Any:
    """Parse JSON text refusing, before parsing, nesting deeper than
    :data:`MAX_JSON_DEPTH`: :class:`FileRefused` ``NAME is ...`` for that, for text that is
    not UTF-8 and for invalid JSON. O(len(text))."""

    def refuse(reason: str) -> FileRefused:
        return FileRefused(f"{name} {reason}", reason)

    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise refuse("is not UTF-8 text") from None
    check_json_depth(text, name)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise refuse(f"is not valid JSON ({exc})") from None
    except (RecursionError, ValueError) as exc:  # a depth the scan missed; a 5000-digit int
        raise refuse(f"is not valid JSON ({str(exc).splitlines()[0][:80]})") from None


def read_json(path: str | Path, what: str, limit: int = MAX_BYTES) -> Any:
    """A JSON file through the bounded reader (:func:`read_user_file`, :func:`load_json`)."""
    return load_json(read_user_file(path, what, limit), f"{what}: {path}")  # as read_user_file


def load(text: str, name: str, loader: type[BoundedLoader] = BoundedLoader) -> Any:
    """Parse one YAML document; UsageError ``NAME:LINE: ...`` if it is invalid or beyond
    the bounds. ``loader`` may be a subclass (the sweep grids keep key lines)."""
    if len(text) > MAX_BYTES:
        raise UsageError(f"{name}: larger than {MAX_BYTES // 1024} KiB; refused")
    instance = None
    try:
        instance = loader(text)  # reads the text: a NUL byte fails here
        instance.name = name
        return instance.get_single_data()
    except YamlLimit as exc:
        line = f":{exc.problem_mark.line + 1}" if exc.problem_mark else ""
        raise UsageError(f"{name}{line}: refused: {exc.problem}") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f":{mark.line + 1}" if mark else ""
        problem = str(exc.problem or exc).splitlines()[0]
        raise UsageError(f"{name}{line}: not valid YAML ({problem})") from None
    except yaml.YAMLError as exc:
        raise UsageError(f"{name}: not valid YAML ({str(exc).splitlines()[0]})") from None
    except RecursionError:  # a deep structure the depth bound missed (a scalar's tag...)
        raise UsageError(f"{name}: refused: nested too deeply") from None
    finally:
        if instance is not None:
            instance.dispose()
