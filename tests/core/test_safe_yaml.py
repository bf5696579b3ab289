"""The bounded YAML loader: alias bombs, deep nesting and huge texts are refused in one line."""

from __future__ import annotations

import pytest

from trackerlab.core import safe_yaml
from trackerlab.core.errors import UsageError


def test_ordinary_documents_and_a_few_aliases_load():
    assert safe_yaml.load("a: 1\nb: [1, 2]\n", "f") == {"a": 1, "b": [1, 2]}
    assert safe_yaml.load("a: &x [1, 2]\nb: *x\n", "f") == {"a": [1, 2], "b": [1, 2]}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
            "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n",
            r"f:3: refused: more than 16 aliases",
        ),
        ("x: " + "[" * 5000 + "]" * 5000, r"f:1: refused: nested deeper than 32 levels"),
        ("x: " + "{a: " * 40 + "1" + "}" * 40, r"refused: nested deeper than 32 levels"),
        (
            "a: &a [" + ",".join(["1"] * 20000) + "]\nb: [*a,*a,*a,*a,*a,*a]\n",
            r"f:2: refused: more than 100,000 values once aliases are expanded",
        ),
        ("&a [*a]", r"f:1: refused: alias \*a inside its own anchor \(a recursive value\)"),
        ("x: &a {y: [1, *a]}", r"f:1: refused: alias \*a inside its own anchor"),
        ("a: [1\n", r"f:2: not valid YAML"),
        ("rate: 20k/s\x00\n", r"f: not valid YAML \(unacceptable character #x0000"),
        ("#" * (safe_yaml.MAX_BYTES + 1), r"f: larger than 1024 KiB; refused"),
    ],
)
def test_bombs_and_malformed_documents_are_one_line(text, message):
    with pytest.raises(UsageError, match=message) as info:
        safe_yaml.load(text, "f")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, r"^f is nested deeper than 64 levels; refused$"),
        ('{"a": ' * 65 + "1" + "}" * 65, r"^f is nested deeper than 64 levels; refused$"),
        ("{", r"^f is not valid JSON \(Expecting"),
        (b"\xff{", r"^f is not UTF-8 text$"),
        ("1" * 5000, r"^f is not valid JSON \(Exceeds the limit"),
    ],
)
def test_json_beyond_the_bounds_is_one_line(text, message):
    with pytest.raises(safe_yaml.FileRefused, match=message) as info:
        safe_yaml.load_json(text, "f")
    assert "\n" not in str(info.value)


def test_json_brackets_inside_strings_do_not_count_as_nesting():
    text = '{"a": "' + "[" * 1000 + '\\"{{", "b": [[1]]}'
    assert safe_yaml.load_json(text, "f") == {"a": "[" * 1000 + '"{{', "b": [[1]]}
    assert safe_yaml.load_json("[" * 64 + "]" * 64, "f") is not None


@pytest.mark.parametrize("kind", ["fifo", "folder", "device", "missing", "big"])
def test_the_bounded_reader_reads_regular_files_only(tmp_path, kind):
    import os

    path = tmp_path / "f"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "device":
        path.symlink_to("/dev/zero")
    elif kind == "big":
        path.write_bytes(b"x" * 2049)
    reasons = {
        "fifo": "is not a regular file",
        "folder": "is a folder, not a file",
        "device": "is not a regular file",
        "missing": "missing",
        "big": "is larger than 2 KiB; refused",
    }
    with pytest.raises(safe_yaml.FileRefused) as info:
        safe_yaml.read_user_file(path, "what", limit=2048)
    assert info.value.reason.startswith(reasons[kind])
    assert str(info.value).startswith("what: ") and str(path) in str(info.value)
