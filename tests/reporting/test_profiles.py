from pathlib import Path

import pytest

from tests.conftest import FIXTURE_NOTEBOOKS, REPO
from trackerlab.core.errors import UsageError
from trackerlab.reporting.notebooks import Parameter, discover, inspect, parse_parameters
from trackerlab.reporting.profiles import coerce, load_profiles, parse_override, resolve


def _infos(folder: Path = FIXTURE_NOTEBOOKS):
    return {name: inspect(path) for name, path in discover(folder).items()}


def test_project_profiles_cover_smoke_default_large():
    profiles = load_profiles(REPO / "notebooks" / "profiles.yaml")
    assert {"smoke", "default", "large"} <= set(profiles)
    infos = _infos(REPO / "notebooks")
    for profile in profiles.values():  # every profile resolves against the real notebooks
        resolved = resolve(profile, infos, infos)
        assert set(resolved) == set(infos)


def test_fixture_profile_values_and_defaults():
    profiles = load_profiles(FIXTURE_NOTEBOOKS / "profiles.yaml")
    infos = _infos()
    assert resolve(profiles["smoke"], infos, ["ok"]) == {"ok": {"n": 4}}
    assert resolve(profiles["default"], infos, ["ok"]) == {"ok": {}}


def test_overrides_are_typed_and_targeted():
    profile = load_profiles(FIXTURE_NOTEBOOKS / "profiles.yaml")["smoke"]
    infos = _infos()
    got = resolve(profile, infos, ["ok", "slow"], ["ok:scale=2", "seconds=5", "label=cubes"])
    assert got == {"ok": {"n": 4, "scale": 2.0, "label": "cubes"}, "slow": {"seconds": 5}}
    assert isinstance(got["ok"]["scale"], float)


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("n=abc", "parameter ok.n must be int"),
        ("n=1.5", "parameter ok.n must be int"),
        ("n=true", "parameter ok.n must be int"),
        ("scale=fast", "parameter ok.scale must be float"),
        ("nope=1", "has no parameter 'nope'"),
        ("garbage", "-p expects"),
    ],
)
def test_bad_overrides(override, message):
    profile = load_profiles(FIXTURE_NOTEBOOKS / "profiles.yaml")["default"]
    with pytest.raises(UsageError, match=message):
        resolve(profile, _infos(), ["ok"], [override])


def test_profile_naming_unknown_parameter_or_notebook(tmp_path):
    infos = _infos()
    bad = tmp_path / "profiles.yaml"
    bad.write_text("p:\n  notebooks:\n    ok: {m: 1}\n")
    with pytest.raises(UsageError, match="has no parameter 'm'"):
        resolve(load_profiles(bad)["p"], infos, ["ok"])
    bad.write_text("p:\n  notebooks:\n    ghost: {}\n")
    with pytest.raises(UsageError, match="unknown notebook 'ghost'"):
        resolve(load_profiles(bad)["p"], infos, ["ok"])


def test_malformed_profile_files(tmp_path):
    with pytest.raises(UsageError, match="not found"):
        load_profiles(tmp_path / "missing.yaml")
    bad = tmp_path / "p.yaml"
    bad.write_text("- a list\n")
    with pytest.raises(UsageError, match="must map"):
        load_profiles(bad)
    bad.write_text("p:\n  notebooks: [1, 2]\n")
    with pytest.raises(UsageError, match="notebooks"):
        load_profiles(bad)
    bad.write_text("p: {notebooks: {ok: 3}}\n")
    with pytest.raises(UsageError, match="must map parameter names"):
        load_profiles(bad)


def test_coerce_rules():
    assert coerce(Parameter("x", 1.0), 2, "nb.x") == 2.0
    assert coerce(Parameter("x", [1]), [2, 3], "nb.x") == [2, 3]
    assert coerce(Parameter("x", [1.0]), [2, 3], "nb.x") == [2.0, 3.0]
    with pytest.raises(UsageError, match=r"parameter nb.x\[1\] must be float"):
        coerce(Parameter("x", [1.0]), [2, "fast"], "nb.x")
    assert coerce(Parameter("x", None), "anything", "nb.x") == "anything"
    with pytest.raises(UsageError):
        coerce(Parameter("x", True), 1, "nb.x")
    assert parse_override("nb:k=0.5") == ("nb", "k", 0.5)
    assert parse_override("k=text") == (None, "k", "text")


def test_parameters_cell_must_be_literals():
    params = parse_parameters("a = 1  # the a\nb: float = 2.5\nc = 'x'\nd = [1, 2]", "t")
    assert [(p.name, p.default, p.help) for p in params] == [
        ("a", 1, "the a"),
        ("b", 2.5, ""),
        ("c", "x", ""),
        ("d", [1, 2], ""),
    ]
    with pytest.raises(ValueError, match="must be a literal"):
        parse_parameters("a = 1\nb = a * 2", "t")
    with pytest.raises(ValueError, match="not `name = literal`"):
        parse_parameters("import os", "t")
