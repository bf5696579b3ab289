"""The ``design_lab_large`` command's input checks: a bad ``--rate-per-s`` is named as the
user wrote it, with its allowed range, on one line, exit code 2."""

import pytest

from trackerlab.experiments import design_lab_large


@pytest.mark.parametrize(("rate", "shown"), [("-5", "-5.0"), ("0", "0.0"), ("2e9", "2000000000.0")])
def test_bad_rate_names_the_option_and_its_range(capsys, rate: str, shown: str) -> None:
    assert design_lab_large.main(["--messages", "1000", f"--rate-per-s={rate}"]) == 2
    err = capsys.readouterr().err
    assert err == f"error: --rate-per-s must be a number in 1e-06..1e+09, got {shown}\n"
    assert "entries_per_ms" not in err


def test_rate_not_a_number_is_refused_the_same_way(capsys) -> None:
    assert design_lab_large.main(["--messages", "1000", "--rate-per-s", "nan"]) == 2
    assert (
        capsys.readouterr().err == "error: --rate-per-s must be a number in 1e-06..1e+09, got nan\n"
    )
