"""Report profiles: named sets of notebook parameters, kept in one reviewed file.

``notebooks/profiles.yaml`` maps a profile name (``smoke``, ``default``, ``large``) to a
description and per-notebook parameter values. A notebook a profile does not mention runs
with the defaults of its parameters cell. Every value is checked against the type of the
parameter's default before anything runs, so a typo fails fast with exit code 2.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from trackerlab.core import safe_yaml
from trackerlab.core.errors import UsageError, shown
from trackerlab.core.params import check_choice
from trackerlab.reporting.notebooks import NotebookInfo, Parameter, inspect

PROFILE_FILE = "profiles.yaml"


@dataclass(frozen=True)
class Profile:
    """A named profile: its description and ``{notebook: {parameter: value}}``."""

    name: str
    description: str
    notebooks: Mapping[str, Mapping[str, object]] = field(default_factory=dict)


def load_profiles(path: Path) -> dict[str, Profile]:
    """Read every profile from ``path``; raise UsageError if the file is missing or malformed."""
    text = safe_yaml.read_user_text(path, "profile file")  # a regular file, bounded
    raw = safe_yaml.load(text, f"profile file {path}")  # bounded: aliases, nesting, size
    if not isinstance(raw, dict):
        raise UsageError(f"profile file {path} must map profile names to settings")
    profiles = {}
    for name, body in raw.items():
        body = body or {}
        notebooks = body.get("notebooks") or {} if isinstance(body, dict) else None
        if not isinstance(notebooks, dict):
            raise UsageError(f"{path}: profile {name!r} must have a 'notebooks' mapping")
        for nb_name, params in notebooks.items():
            if params is not None and not isinstance(params, dict):
                raise UsageError(f"{path}: {name}.{nb_name} must map parameter names to values")
        profiles[str(name)] = Profile(
            str(name),
            str(body.get("description", "")),
            {str(k): dict(v or {}) for k, v in notebooks.items()},
        )
    return profiles


def get_profile(folder: Path, name: object) -> Profile:
    """Profile ``name`` of ``folder``'s profile file; UsageError listing the profiles."""
    profiles = load_profiles(folder / PROFILE_FILE)
    return profiles[check_choice("profile", name, list(profiles))]


def notebook_values(folder: Path, profile_name: str, notebook: str) -> dict[str, object]:
    """A notebook's parameter values under a profile: its defaults overlaid with the
    profile's values for it (type-checked)."""
    full = get_profile(folder, profile_name)
    profile = Profile(full.name, full.description, {notebook: full.notebooks.get(notebook, {})})
    info = inspect(folder / f"{notebook}.ipynb")
    values = {p.name: p.default for p in info.parameters}
    values.update(resolve(profile, {notebook: info}, [notebook])[notebook])
    return values


def coerce(param: Parameter, value: object, where: str) -> object:
    """Check ``value`` against the type of ``param.default``; ints widen to floats.

    Raises UsageError naming ``where`` (e.g. ``negative_acks.rate_per_ms``) and both types.
    """
    default = param.default
    if default is None:
        return value
    expected = type(default)
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(default, float):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if isinstance(value, (int, float)) and ok:
            value = float(value)
    elif isinstance(default, (list, tuple)):
        ok, expected = isinstance(value, (list, tuple)), list
        # items like the default's items: [1.0, 8.0] takes floats
        if isinstance(value, (list, tuple)) and default:
            item = Parameter(param.name, default[0])
            value = [coerce(item, v, f"{where}[{i}]") for i, v in enumerate(value)]
    else:
        ok = isinstance(value, expected)
    if not ok:
        raise UsageError(
            f"parameter {where} must be {expected.__name__} (default {default!r}), "
            f"got {value!r} ({type(value).__name__})"
        )
    return value


def parse_override(text: str) -> tuple[str | None, str, object]:
    """Parse ``-p [NOTEBOOK:]NAME=VALUE``; VALUE is read as a YAML scalar (10, 0.5, true, abc)."""
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise UsageError(f"-p expects [NOTEBOOK:]NAME=VALUE, got {shown(text)}")
    notebook, colon, name = key.rpartition(":")
    if (colon and not notebook.strip()) or not name.strip():
        raise UsageError(f"-p expects [NOTEBOOK:]NAME=VALUE, got {shown(text)}")
    try:
        value = safe_yaml.load(raw, f"-p {shown(text, quoted=False)}")
    except UsageError as exc:
        if ": refused:" in str(exc):  # an alias bomb or a deep nest: never text
            raise
        value = raw
    return (notebook or None), name, value


def resolve(
    profile: Profile,
    notebooks: Mapping[str, NotebookInfo],
    selected: Iterable[str],
    overrides: Iterable[str] = (),
) -> dict[str, dict[str, object]]:
    """Parameters for each selected notebook: profile values, then ``-p`` overrides.

    Raises UsageError for a profile entry naming an unknown notebook or parameter, an
    override that matches no selected notebook, or a value of the wrong type.
    """
    for nb_name in profile.notebooks:
        if nb_name not in notebooks:
            raise UsageError(f"profile {profile.name} names unknown notebook {nb_name!r}")
    selected = list(selected)
    result: dict[str, dict[str, object]] = {}
    for nb_name in selected:
        info = notebooks[nb_name]
        params = {}
        for key, value in profile.notebooks.get(nb_name, {}).items():
            param = info.parameter(key)
            if param is None:
                known = ", ".join(p.name for p in info.parameters) or "none"
                raise UsageError(
                    f"profile {profile.name}: notebook {nb_name} has no parameter {key!r} "
                    f"(parameters: {known})"
                )
            params[key] = coerce(param, value, f"{nb_name}.{key}")
        result[nb_name] = params
    for text in overrides:
        target, key, value = parse_override(text)
        hits = [n for n in selected if (target in (None, n)) and notebooks[n].parameter(key)]
        if not hits:
            where = f"notebook {target}" if target else "any selected notebook"
            raise UsageError(f"-p {text}: {where} has no parameter {key!r}")
        for nb_name in hits:
            param = notebooks[nb_name].parameter(key)
            assert param is not None
            result[nb_name][key] = coerce(param, value, f"{nb_name}.{key}")
    return result
