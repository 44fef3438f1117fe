"""The examples in the 三丁拐 package's docstrings are true."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize("module", ["__init__", "notation", "hands"])
def test_doctests(module: str) -> None:
    name = "weimaque.games.sandingguai" + ("" if module == "__init__" else f".{module}")
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
