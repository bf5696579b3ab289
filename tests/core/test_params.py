import pytest

from trackerlab.core.errors import UsageError
from trackerlab.core.params import check_choice, check_float, check_int, check_positive


def test_check_int_accepts_and_names_range():
    assert check_int("trim_bits", 10, 0, 62) == 10
    assert check_int("trim_bits", "7", 0, 62) == 7
    assert check_int("n", 3.0, 0) == 3
    with pytest.raises(UsageError, match=r"trim_bits must be an integer in 0\.\.62, got 63"):
        check_int("trim_bits", 63, 0, 62)
    with pytest.raises(UsageError, match="got True"):
        check_int("n", True, 0)
    with pytest.raises(UsageError, match=r">= 1"):
        check_int("entries_per_ledger", 0, 1)


def test_check_float_and_positive():
    assert check_float("f", "0.5", 0, 1) == 0.5
    assert check_positive("rate", 1e-3) == 1e-3
    for bad in (0, -1, float("nan"), float("inf"), "x", None, True):
        with pytest.raises(UsageError, match="rate must be a number > 0"):
            check_positive("rate", bad)


def test_check_choice_lists_valid_values():
    assert check_choice("delay distribution", "fixed", ["fixed", "uniform"]) == "fixed"
    with pytest.raises(
        UsageError, match="unknown delay distribution 'zipf'; choose one of: fixed, uniform"
    ):
        check_choice("delay distribution", "zipf", ["fixed", "uniform"])
