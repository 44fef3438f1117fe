"""What every game's rules share as data: rule options checked against a rule set's defaults,
and the header of a preset TOML file (docs/rules.md §7.3, docs/sandingguai.md §11).

A game keeps its own ``RuleConfig`` (a frozen dataclass whose field defaults are the defaults of
its options) and its own presets; this module only reads and checks them, and quotes what is
wrong.
"""

from __future__ import annotations

import tomllib
from collections.abc import Collection, Mapping
from typing import Any, Final

from weimaque.errors import RuleConfigError, quoted

#: Every preset names itself with these, each a string.
HEADER_STRINGS: Final = ("id", "name", "name_en", "source")


def check_options(
    raw: Mapping[str, object], names: Collection[str], defaults: object
) -> dict[str, Any]:
    """Check option names against ``names`` and value types against the attribute of that name
    on ``defaults`` (bool, int or str); the options as a dict, or an error quoting what is wrong.
    """
    out: dict[str, Any] = {}
    for name, value in raw.items():
        if name not in names:
            raise RuleConfigError(f"unknown rule option {quoted(name)}")
        default = getattr(defaults, name)
        if isinstance(default, bool):
            ok = isinstance(value, bool)
        elif isinstance(default, int):
            ok = isinstance(value, int) and not isinstance(value, bool)
        else:
            ok = isinstance(value, str)
        if not ok:
            raise RuleConfigError(
                f"option {name!r} takes a {type(default).__name__}, not {quoted(value)}"
            )
        out[name] = value
    return out


def read_preset(text: str, origin: str, keys: Collection[str]) -> dict[str, Any]:
    """The table of one preset TOML file, its header checked: only ``keys`` at the top, the
    strings of :data:`HEADER_STRINGS`, ``aliases`` a list of strings (as a tuple), ``options`` a
    table, ``description`` (English) and ``description_zh`` (Chinese) strings (empty when
    missing; every preset the games ship has both, docs/rules.md §7.3)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleConfigError(f"{origin}: not valid TOML: {exc}") from exc
    unknown = set(data) - set(keys)
    if unknown:
        raise RuleConfigError(f"{origin}: unknown keys {sorted(unknown)}")
    for key in HEADER_STRINGS:
        if not isinstance(data.get(key), str):
            raise RuleConfigError(f"{origin}: {key!r} must be a string")
    aliases = data.get("aliases", [])
    if not (isinstance(aliases, list) and all(isinstance(a, str) for a in aliases)):
        raise RuleConfigError(f"{origin}: 'aliases' must be a list of strings")
    data["aliases"] = tuple(aliases)
    if not isinstance(data.get("options", {}), dict):
        raise RuleConfigError(f"{origin}: 'options' must be a table")
    for key in ("description", "description_zh"):
        if not isinstance(data.get(key, ""), str):
            raise RuleConfigError(f"{origin}: {key!r} must be a string")
        data[key] = data.get(key, "")
    return data


__all__ = ["HEADER_STRINGS", "check_options", "read_preset"]
