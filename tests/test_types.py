"""lib/ is typed: mypy (pyproject's [tool.mypy]) and reasons on every ``type: ignore``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LIB = REPO / "lib"

#: a ``type: ignore`` comment (codes optional) and what follows it on the line
_IGNORE = re.compile(r"#\s*type:\s*ignore(?:\[[^\]]*\])?(?P<rest>.*)$")
#: a reason: another ``#`` comment after the ignore, with some text in it
_REASON = re.compile(r"^\s*#\s*\S")


def ignores_without_reason(text: str, name: str = "<text>") -> list[str]:
    """``name:line: source`` of each ``type: ignore`` with no ``# reason`` after it."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        match = _IGNORE.search(line)
        if match and not _REASON.match(match.group("rest")):
            found.append(f"{name}:{number}: {line.strip()}")
    return found


def test_scan_flags_an_ignore_without_reason():
    sample = (
        "x = f()  # type: ignore[arg-type]\n"
        "y = g()  # type: ignore\n"
        "z = h()  # type: ignore[misc]  # pandas-stubs types .at as a scalar union\n"
        "w = 1  # a plain comment\n"
    )
    assert ignores_without_reason(sample, "sample.py") == [
        "sample.py:1: x = f()  # type: ignore[arg-type]",
        "sample.py:2: y = g()  # type: ignore",
    ]


def test_every_type_ignore_in_lib_gives_a_reason():
    found = []
    for path in sorted(LIB.rglob("*.py")):
        found += ignores_without_reason(path.read_text(), str(path.relative_to(REPO)))
    assert found == [], "type: ignore without a '# reason' on the same line:\n" + "\n".join(found)


def mypy_error_count(output: str) -> int:
    """The N of mypy's "Found N errors in M files" line; 0 on "Success"."""
    match = re.search(r"^Found (\d+) errors? in \d+ files?", output, re.MULTILINE)
    if match:
        return int(match.group(1))
    assert re.search(r"^Success: no issues found", output, re.MULTILINE), output[-2000:]
    return 0


def test_the_error_count_is_read_from_mypys_summary():
    assert mypy_error_count("a.py:1: error: x\nFound 12 errors in 3 files (checked 9)\n") == 12
    assert mypy_error_count("Found 1 error in 1 file (checked 9 source files)\n") == 1
    assert mypy_error_count("Success: no issues found in 9 source files\n") == 0
    with pytest.raises(AssertionError):
        mypy_error_count("mypy: can't read file 'lib'\n")


@pytest.mark.slow
def test_mypy_is_clean():
    """mypy over lib/ ([tool.mypy] in pyproject.toml) reports no error: `make lint` and CI."""
    done = subprocess.run(
        [sys.executable, "-m", "mypy"], cwd=REPO, capture_output=True, text=True, timeout=1800
    )
    count = mypy_error_count(done.stdout + done.stderr)
    assert count == 0, f"mypy reports {count} errors in lib/:\n" + done.stdout[-4000:]
