"""Every numeric notebook parameter has a stated range, and every profile stays inside."""

from __future__ import annotations

import pytest

from tests.conftest import REPO
from trackerlab.core.errors import UsageError
from trackerlab.reporting.notebooks import discover, inspect
from trackerlab.reporting.profiles import load_profiles, resolve
from trackerlab.reporting.ranges import check_ranges, estimate_report, rule_for
from trackerlab.reporting.runner import full_parameters

NOTEBOOKS = REPO / "notebooks"


def _numeric(value) -> bool:
    items = value if isinstance(value, (list, tuple)) else [value]
    return any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in items)


def test_every_numeric_parameter_has_a_stated_range():
    missing = [
        f"{name}.{p.name}"
        for name, path in discover(NOTEBOOKS).items()
        for p in inspect(path).parameters
        if _numeric(p.default) and rule_for(p.name) is None
    ]
    assert missing == [], "add a rule to trackerlab/reporting/ranges.py RULES"


@pytest.mark.parametrize("profile", ["smoke", "default", "large"])
def test_profiles_are_inside_their_ranges_and_the_cost_guard(profile):
    infos = {n: inspect(p) for n, p in discover(NOTEBOOKS).items()}
    params = resolve(load_profiles(NOTEBOOKS / "profiles.yaml")[profile], infos, infos)
    full = full_parameters(infos, params)
    check_ranges(full)
    estimate = estimate_report(full)
    assert estimate.seconds < 3600 and estimate.memory_bytes < 4 << 30, estimate


def test_out_of_range_values_name_the_notebook_parameter_and_item():
    with pytest.raises(
        UsageError, match=r"parameter nb\.trim_bits\[1\] must be an integer in 0\.\.40, got 99"
    ):
        check_ranges({"nb": {"trim_bits": [8, 99]}})
    with pytest.raises(UsageError, match=r"parameter nb\.fractions\[0\] must be a number > 0"):
        check_ranges({"nb": {"fractions": [0.0]}})
    check_ranges({"nb": {"label": "text", "flag": True, "unknown_thing": -5}})
