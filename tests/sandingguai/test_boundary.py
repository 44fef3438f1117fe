"""The 三丁拐 package is self-contained: of weimaque it imports only ``weimaque.errors``, the
rule-data helpers every game shares (``weimaque.presets``) and, in its adapter ``game.py``, the
game protocol it implements (docs/new-game.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import weimaque.games.sandingguai as package

ALLOWED = (
    "weimaque.errors",
    "weimaque.presets",
    "weimaque.games.sandingguai",
    "weimaque.games.protocol",
)


def test_imports_stay_inside_the_package() -> None:
    root = Path(package.__file__).parent
    found: list[tuple[str, str]] = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                # Only the adapter implements the protocol; the engine knows nothing of it.
                seam = name == "weimaque.games.protocol" and path.name != "game.py"
                if seam or (name.startswith("weimaque") and not name.startswith(ALLOWED)):
                    found.append((path.name, name))
    assert found == []
    assert len(list(root.glob("*.py"))) >= 10
