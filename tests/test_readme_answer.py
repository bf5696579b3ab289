"""The planner answer the README quotes is the one ``trackerlab plan`` prints today."""

from __future__ import annotations

import re
import shlex

from tests.conftest import REPO, run_cli


def _quoted_example() -> tuple[list[str], str]:
    """The README's capacity-planning command and the answer it quotes (whitespace folded)."""
    text = (REPO / "README.md").read_text()
    section = text.split("## Capacity planning", 1)[1]
    command = re.search(r"```sh\n(trackerlab plan [^\n]+)\n```", section).group(1)
    quoted = re.search(r'answers in [^"]*"(.+?)", then one table', section, re.S).group(1)
    return shlex.split(command)[1:], " ".join(quoted.split())


def test_the_readme_quotes_what_plan_prints():
    args, quoted = _quoted_example()
    result = run_cli(*args)
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0].rstrip(".")
    assert first == quoted, f"README quotes:\n{quoted}\nplan prints:\n{first}"


def test_the_readme_nack_figure_is_the_plan_s():
    """The README sentence "the example's nack trackers hold X per consumer": the nack row."""
    from trackerlab.planner.memory_plan import plan
    from trackerlab.planner.workload import PlanWorkload
    from trackerlab.workloads.units import format_bytes

    args, _ = _quoted_example()
    flags = dict(zip(args[1::2], args[2::2], strict=True))
    w = PlanWorkload.parse({k.lstrip("-"): v for k, v in flags.items()})
    row = next(r for r in plan(w).rows if r.default and r.tracker == "negative-ack tracker")
    text = " ".join((REPO / "README.md").read_text().split())
    assert f"nack trackers hold {format_bytes(row.peak_bytes)} per consumer" in text
