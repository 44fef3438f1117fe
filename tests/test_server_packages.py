"""The server's folders say what they hold (docs/architecture.md, "Inside the server").

Each sub-package of ``weimaque.server`` opens with a one-line docstring, no module of the server
imports itself through others (no circle), and ``weimaque.server.create_app`` is the app's,
loaded only when it is asked for. The order of the packages is ``lint-imports``' contract
``server-layers`` (pyproject.toml).
"""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import grimp

import weimaque.server

PACKAGES = ("base", "wire", "store", "table", "cluster", "edge", "players")


def test_every_package_of_the_server_says_what_it_holds_in_one_line() -> None:
    found = sorted(
        info.name for info in pkgutil.iter_modules(weimaque.server.__path__) if info.ispkg
    )
    assert found == sorted(PACKAGES)
    for name in PACKAGES:
        doc = importlib.import_module(f"weimaque.server.{name}").__doc__
        assert doc is not None, name
        assert len(doc.strip().splitlines()) == 1, (name, doc)


def test_no_module_of_the_server_imports_itself_through_others() -> None:
    graph = grimp.build_graph("weimaque")
    server = sorted(m for m in graph.modules if m.startswith("weimaque.server."))
    circles = []
    for module in server:
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported.startswith("weimaque.server.") and graph.chain_exists(
                importer=imported, imported=module
            ):
                circles.append((module, imported))
    assert circles == []


def test_create_app_is_the_apps_and_loads_nothing_until_asked_for() -> None:
    script = (
        "import sys\n"
        "import weimaque.server.store.store, weimaque.server.wire.protocol\n"
        "assert 'weimaque.server.app' not in sys.modules, 'the app came with the store'\n"
        "from weimaque.server import create_app\n"
        "from weimaque.server.app import create_app as made\n"
        "assert create_app is made\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)
