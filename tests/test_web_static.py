"""What ``wmq serve`` serves besides the API: the UI, its library, and unknown addresses."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from weimaque.server.app import UI_LIBRARY, create_app, web_dir


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "static.db")) as c:
        yield c


def test_the_rendering_library_is_installed_and_served(client: TestClient) -> None:
    # make setup installs it from the lock file (npm ci); the pages import it by this path.
    assert (web_dir() / UI_LIBRARY).is_file()
    res = client.get(f"/static/{UI_LIBRARY}")
    assert res.status_code == 200
    assert "javascript" in res.headers["content-type"]
    assert "../node_modules/preact/dist/preact.mjs" in (web_dir() / "js" / "dom.js").read_text()


@pytest.mark.parametrize("path", ["/nope", "/r/x/y", "/static-ish", "/%E6%97%A0"])
def test_an_unknown_address_gets_the_page_that_says_so(client: TestClient, path: str) -> None:
    res = client.get(path)
    assert res.status_code == 404
    assert res.headers["content-type"].startswith("text/html")
    assert '<div id="app">' in res.text  # the UI draws the styled page with the way back


def test_an_unknown_api_address_gets_a_json_error(client: TestClient) -> None:
    res = client.get("/api/nope")
    assert res.status_code == 404
    assert res.json()["error"]["code"] == "not_found"
    assert "'/api/nope'" in res.json()["error"]["message"]


def test_the_known_pages_are_served(client: TestClient) -> None:
    for path in ("/", "/score"):
        res = client.get(path)
        assert res.status_code == 200 and '<div id="app">' in res.text
