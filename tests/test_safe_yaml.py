"""The bounded YAML loader: alias bombs, deep nesting and huge texts are refused in one line."""

from __future__ import annotations

import pytest

from trackerlab import safe_yaml
from trackerlab.errors import UsageError


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
        ("#" * (safe_yaml.MAX_BYTES + 1), r"f: larger than 1024 KiB; refused"),
    ],
)
def test_bombs_and_malformed_documents_are_one_line(text, message):
    with pytest.raises(UsageError, match=message) as info:
        safe_yaml.load(text, "f")
    assert "\n" not in str(info.value)
