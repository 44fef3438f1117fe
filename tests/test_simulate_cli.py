"""``wmq simulate``: random legal play with invariant checks, one JSON object with --json."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from weimaque.cli import app


def test_simulate_json_with_checks() -> None:
    result = CliRunner().invoke(
        app, ["simulate", "--games", "40", "--seed", "5", "--check", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {
        "games",
        "seconds",
        "games_per_s",
        "actions_per_s",
        "wins",
        "chou",
        "invariant_failures",
    }
    assert data["games"] == 40
    assert data["wins"] + data["chou"] == 40
    assert data["invariant_failures"] == 0
    assert data["games_per_s"] > 0 and data["actions_per_s"] > 0


def test_simulate_same_seed_same_outcome() -> None:
    runs = [
        json.loads(
            CliRunner().invoke(app, ["simulate", "-n", "30", "--seed", "9", "--json"]).stdout
        )
        for _ in range(2)
    ]
    assert runs[0]["wins"] == runs[1]["wins"] and runs[0]["chou"] == runs[1]["chou"]


def test_simulate_unknown_rules_is_refused() -> None:
    result = CliRunner().invoke(app, ["simulate", "--rules", "nosuch", "--json"])
    assert result.exit_code == 2
    assert "nosuch" in result.output
