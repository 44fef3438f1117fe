"""The installed app's files as the server serves them (docs/web.md "Installed").

The worker at ``/sw.js`` carries the shell's files and version and is never cached by HTTP; the
manifest has its media type; every file of the shell is served, revalidated each time; a change
to any static file is a new version; the icons are PNGs of the sizes the manifest says.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from weimaque.server.app import create_app, web_dir
from weimaque.server.edge.shell import UI_LIBRARY, VERSION_HEADER, shell_of

WEB = web_dir()


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "app.db")) as c:
        yield c


def png_size(data: bytes) -> tuple[int, int]:
    """The width and height of a PNG (its IHDR chunk), after checking its signature."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def test_the_worker_is_served_from_the_root_with_the_shell_written_in(client: TestClient) -> None:
    res = client.get("/sw.js")
    assert res.status_code == 200
    assert res.headers["content-type"].startswith("text/javascript")
    assert res.headers["cache-control"] == "no-cache"
    assert res.headers["service-worker-allowed"] == "/"
    assert "{{" not in res.text
    shell = shell_of(WEB)
    assert f"const VERSION = {json.dumps(shell.version)};" in res.text
    written = re.search(r"^const SHELL = (.*);$", res.text, re.M)
    assert written is not None and tuple(json.loads(written.group(1))) == shell.urls


def test_every_file_of_the_shell_is_served_and_revalidated(client: TestClient) -> None:
    shell = shell_of(WEB)
    assert f"/static/{UI_LIBRARY}" in shell.urls
    assert "/static/offline.html" in shell.urls and "/manifest.webmanifest" in shell.urls
    assert not [u for u in shell.urls if "package" in u or u.endswith(("sw.js", "index.html"))]
    for url in shell.urls:
        res = client.get(url)
        assert res.status_code == 200, url
        if url.startswith("/static/"):
            assert res.headers["cache-control"] == "no-cache", url
    # A page says the version of the shell it goes with.
    for path in ("/", "/score", "/r/nope"):
        assert client.get(path).headers[VERSION_HEADER] == shell.version


def test_the_manifest_has_its_media_type_and_is_linked(client: TestClient) -> None:
    res = client.get("/manifest.webmanifest")
    assert res.headers["content-type"] == "application/manifest+json"
    assert res.headers["cache-control"] == "no-cache"
    manifest = res.json()
    assert manifest["display"] == "fullscreen" and manifest["orientation"] == "landscape"
    page = client.get("/").text
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page
    assert '<link rel="apple-touch-icon" href="/static/icons/apple-touch-icon.png">' in page


@pytest.mark.parametrize(
    ("name", "side"), [("icon-192.png", 192), ("icon-512.png", 512), ("apple-touch-icon.png", 180)]
)
def test_the_icons_are_pngs_of_their_sizes(name: str, side: int) -> None:
    assert png_size((WEB / "icons" / name).read_bytes()) == (side, side)


def test_a_changed_static_file_is_a_new_version(tmp_path: Path) -> None:
    web = tmp_path / "web"
    shutil.copytree(WEB, web, ignore=shutil.ignore_patterns("node_modules"))
    with TestClient(create_app(tmp_path / "app.db", web=web)) as c:
        before = c.get("/sw.js").text
        version = shell_of(web).version
        script = web / "js" / "app.js"
        script.write_text(script.read_text(encoding="utf-8") + "\n// changed\n", encoding="utf-8")
        after = c.get("/sw.js").text
        assert shell_of(web).version != version
        assert json.dumps(version) in before and json.dumps(version) not in after
        assert c.get("/").headers[VERSION_HEADER] == shell_of(web).version
        # A file touched but not changed keeps the version: it is a digest of the contents.
        os.utime(script)
        assert c.get("/sw.js").text == after
