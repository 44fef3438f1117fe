"""The installed app (docs/web.md "Installed"): manifest, icons, service worker, offline page.

On Debian's Chromium: the manifest is one Chrome reads without errors and its icons are what it
says; the service worker controls the page after a reload and holds the shell in a cache named
by its version; offline, a page asked for is the page that says so in both languages, which
opens the page again when the network is back; the room keeps reconnecting its socket by itself;
and a changed static file is a new version: the page shows the new file at once, a new worker
takes over with a new cache and the old cache is gone. Set ``WMQ_DOC_SHOTS=1`` to refresh the
screenshots of docs/web.md.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import CHROMIUM, LAUNCH_ARGS, _free_port
from tests.browser.test_browser import DESKTOP, Browser, Page, new_page, pytestmark
from tests.browser.test_table import LANDSCAPE, doc_shot, post
from weimaque.server.app import web_dir
from weimaque.server.edge.shell import UI_LIBRARY, shell_of

__all__ = ["pytestmark"]  # skipped, as the other browser tests, without Chromium

# Resolves once a service worker controls the page (after a reload, or once it claims it).
CONTROLLED_JS = "() => navigator.serviceWorker.controller !== null"
# The names of the caches of the page's origin.
CACHES_JS = "() => caches.keys()"


def png_size(data: bytes) -> tuple[int, int]:
    """The width and height of a PNG (its IHDR chunk), after checking its signature."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def fetch(base: str, path: str) -> tuple[dict[str, str], bytes]:
    with urllib.request.urlopen(base + path) as res:
        return {k.lower(): v for k, v in res.headers.items()}, res.read()


def until(page: Page, js: str, expected: Any, timeout: float = 10.0) -> None:
    """Wait until the (maybe asynchronous) ``js`` evaluates to ``expected`` in ``page``."""
    deadline = time.monotonic() + timeout
    while (value := page.evaluate(js)) != expected:
        assert time.monotonic() < deadline, f"{js} is {value!r}, not {expected!r}"
        page.wait_for_timeout(100)


def installed_page(
    browser: Browser,
    errors: list[str],
    base: str,
    path: str = "/",
    viewport: dict[str, int] = LANDSCAPE,
) -> Page:
    """A page of ``path`` in a fresh context, controlled by the service worker."""
    page = new_page(browser, errors, viewport)
    page.goto(base + path)
    page.evaluate("() => navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_function(CONTROLLED_JS)
    return page


def test_the_manifest_is_valid_and_its_icons_are_what_it_says(
    server: str, browser: Browser, page_errors: list[str], tmp_path: Path
) -> None:
    headers, body = fetch(server, "/manifest.webmanifest")
    assert headers["content-type"] == "application/manifest+json"
    manifest = json.loads(body)
    assert manifest["name"] and manifest["short_name"]
    assert manifest["start_url"] == "/" and manifest["scope"] == "/"
    assert manifest["display"] in ("fullscreen", "standalone")
    assert manifest["orientation"] == "landscape"
    style = (web_dir() / "style.css").read_text(encoding="utf-8")
    assert f"--felt: {manifest['theme_color']};" in style
    assert f"--felt: {manifest['background_color']};" in style
    sizes = set()
    for icon in manifest["icons"]:
        headers, data = fetch(server, icon["src"])
        assert headers["content-type"].startswith(icon["type"]), icon
        if icon["type"] == "image/png":
            side = png_size(data)
            assert f"{side[0]}x{side[1]}" == icon["sizes"], icon
            sizes.add(side[0])
        else:
            assert icon["sizes"] == "any" and data.startswith(b"<svg"), icon
    assert {192, 512} <= sizes  # what Chrome needs to install an app
    assert any(i["purpose"] == "maskable" for i in manifest["icons"])
    _, touch = fetch(server, "/static/icons/apple-touch-icon.png")
    assert png_size(touch) == (180, 180)
    # Chrome itself reads the manifest the page links to without an error, and, in a profile of
    # its own (never for an incognito window), finds the app installable: the manifest, its
    # icons and a worker that answers offline.
    context = browser.browser_type.launch_persistent_context(
        str(tmp_path / "profile"),
        executable_path=str(CHROMIUM),
        args=LAUNCH_ARGS,
        viewport=LANDSCAPE,
    )
    try:
        page = context.pages[0] if context.pages else context.new_page()
        page.on("pageerror", lambda exc: page_errors.append(str(exc)))
        page.goto(server + "/")
        page.evaluate("() => navigator.serviceWorker.ready.then(() => true)")
        cdp = context.new_cdp_session(page)
        read = cdp.send("Page.getAppManifest")
        assert read["url"] == server + "/manifest.webmanifest"
        assert read["errors"] == []
        assert json.loads(read["data"])["name"] == manifest["name"]
        problems = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
        assert problems == []
    finally:
        context.close()
    assert page_errors == []


def test_the_worker_controls_every_page_and_caches_the_shell(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    headers, body = fetch(server, "/sw.js")
    assert headers["content-type"].startswith("text/javascript")
    assert headers["cache-control"] == "no-cache"
    shell = shell_of(web_dir())
    assert json.dumps(shell.version) in body.decode()
    page = installed_page(browser, page_errors, server)
    script = page.evaluate("() => navigator.serviceWorker.controller.scriptURL")
    assert script == server + "/sw.js"
    assert page.evaluate(CACHES_JS) == [f"wmq-shell-{shell.version}"]
    cached = page.evaluate(
        """async () => (await (await caches.open((await caches.keys())[0])).keys())
            .map((r) => new URL(r.url).pathname)"""
    )
    assert sorted(cached) == sorted(shell.urls)
    assert all(u.startswith("/static/") or u == "/manifest.webmanifest" for u in cached)
    assert f"/static/{UI_LIBRARY}" in cached and "/static/offline.html" in cached
    assert {"/static/js/app.js", "/static/style.css", "/static/icons/icon-192.png"} <= set(cached)
    # The API's answers (live and private) never enter the cache, nor do the pages themselves.
    page.evaluate("() => fetch('/api/presets').then((r) => r.json())")
    cached = page.evaluate(
        """async () => (await (await caches.open((await caches.keys())[0])).keys())
            .map((r) => new URL(r.url).pathname)"""
    )
    assert sorted(cached) == sorted(shell.urls)
    # The room's page and the 算息 page are the worker's too (it is served from the root).
    room = post(server, "/api/rooms", {"bots": {"1": "random", "2": "random"}})["room_id"]
    for path in (f"/r/{room}", "/score"):
        page.goto(server + path)
        page.wait_for_function(CONTROLLED_JS)
    assert page_errors == []


@pytest.mark.parametrize(
    ("viewport", "name"), [(LANDSCAPE, "offline-phone-landscape"), (DESKTOP, "offline-desktop")]
)
def test_offline_a_page_says_so_in_both_languages_and_comes_back_with_the_network(
    server: str, browser: Browser, page_errors: list[str], viewport: dict[str, int], name: str
) -> None:
    page = installed_page(browser, page_errors, server, viewport=viewport)
    page.context.set_offline(True)
    page.goto(server + "/score")  # the worker answers: no browser error page
    offline = page.get_by_test_id("offline-page")
    offline.wait_for()
    assert offline.locator("h2").inner_text() == "离线，正在重连…"
    assert offline.locator(".other-lang").inner_text() == "Offline, reconnecting…"
    assert page.locator("header.top.offline").count() == 1  # the shell's red bar of a lost link
    doc_shot(page, name)
    # It keeps asking the server; once the network is back it opens the page asked for.
    page.context.set_offline(False)
    page.get_by_test_id("score-form").wait_for()
    assert page.url == server + "/score"
    assert page_errors == []


def test_the_room_reconnects_its_socket_by_itself_under_the_worker(
    server: str, browser: Browser, page_errors: list[str]
) -> None:
    room = post(server, "/api/rooms", {"bots": {"1": "random", "2": "random"}})["room_id"]
    page = installed_page(browser, page_errors, server, f"/r/{room}")
    page.get_by_test_id("menu").wait_for()  # the room's bar
    page.wait_for_function("() => !document.querySelector('[data-testid=conn]')")  # connected
    # The socket drops with the network: the room says so and stays the room (no page is asked
    # for, so the offline page never shows); with the network back it rejoins by itself.
    page.context.set_offline(True)
    page.get_by_test_id("offline").wait_for()
    page.context.set_offline(False)
    page.get_by_test_id("offline").wait_for(state="detached", timeout=20_000)
    assert page.get_by_test_id("offline-page").count() == 0
    assert page.url == f"{server}/r/{room}"
    assert page_errors == []


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A server of a copy of the UI, which the test may change as an upgrade would."""
    web = tmp_path / "web"
    shutil.copytree(web_dir(), web, ignore=shutil.ignore_patterns("node_modules"))
    (web / UI_LIBRARY).parent.mkdir(parents=True)
    shutil.copy(web_dir() / UI_LIBRARY, web / UI_LIBRARY)
    port = _free_port()
    code = (
        "import sys, uvicorn; from pathlib import Path; from weimaque.server.app import create_app;"
        "uvicorn.run(create_app(sys.argv[1], web=Path(sys.argv[2])), host='127.0.0.1',"
        " port=int(sys.argv[3]), log_level='warning')"
    )
    args = [sys.executable, "-c", code, str(tmp_path / "rooms.db"), str(web), str(port)]
    proc = subprocess.Popen(args, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                fetch(base, "/api/health")
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "no server"
                time.sleep(0.1)
        yield base, web
    finally:
        proc.terminate()
        proc.wait(timeout=10)


# The value of a CSS property the test adds to style.css, as the page sees it.
PROBE_JS = "() => getComputedStyle(document.documentElement).getPropertyValue('--probe').trim()"


def test_a_changed_file_is_a_new_version_seen_at_the_next_start(
    own_server: tuple[str, Path], browser: Browser, page_errors: list[str]
) -> None:
    base, web = own_server
    old = shell_of(web).version
    page = installed_page(browser, page_errors, base)
    assert page.evaluate(CACHES_JS) == [f"wmq-shell-{old}"]
    assert page.evaluate(PROBE_JS) == ""
    # An upgrade changes one static file.
    css = web / "style.css"
    css.write_text(css.read_text(encoding="utf-8") + "\n:root { --probe: 2; }\n", encoding="utf-8")
    new = shell_of(web).version
    assert new != old
    # The next start already shows the new file: the page says the server's version, and the
    # old worker, seeing it is not its own, fetches that page's files anew.
    page.reload()
    assert page.evaluate(PROBE_JS) == "2"
    # Meanwhile the new worker installs, takes over, and the old cache goes.
    until(page, CACHES_JS, [f"wmq-shell-{new}"])
    cached = page.evaluate("() => caches.match('/static/style.css').then((r) => r.text())")
    assert "--probe: 2" in cached
    # And the start after that, from the new cache, is the new version too.
    page.reload()
    page.wait_for_function(CONTROLLED_JS)
    assert page.evaluate(PROBE_JS) == "2"
    assert page_errors == []
