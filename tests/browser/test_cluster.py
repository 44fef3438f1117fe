"""The browser game from a cluster (docs/scale.md): a player at a table with two bots, through
HAProxy, whose room's process is killed mid-hand. The page reconnects by itself, the room is
restored on the other process, and the hand plays to its end."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.test_browser import (  # noqa: F401  (pytestmark: skip without Chromium)
    DESKTOP,
    Browser,
    new_page,
    play_until_end,
    pytestmark,
    shot,
)
from weimaque.deploy import haproxy, postgres, redis
from weimaque.deploy.local import LocalCluster

needs_cluster = pytest.mark.skipif(
    not (postgres.available() and redis.available() and haproxy.available()),
    reason="Debian's postgresql, redis-server and haproxy are not installed (make test does)",
)


@pytest.fixture
def cluster() -> Iterator[LocalCluster]:
    folder = Path(tempfile.mkdtemp(prefix="wmq-browser-cluster-"))
    os.chmod(folder, 0o755)  # PostgreSQL's own user reaches it
    try:
        with LocalCluster(folder, servers=2, lease_seconds=1.0) as made:
            yield made
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@needs_cluster
def test_a_table_survives_the_loss_of_its_process(
    cluster: LocalCluster, browser: Browser, page_errors: list[str]
) -> None:
    page = new_page(browser, page_errors, DESKTOP)
    page.goto(cluster.url + "/")
    page.get_by_test_id("quick-start").click()
    page.get_by_test_id("hand").wait_for()
    room_id = page.url.rstrip("/").rsplit("/", 1)[-1]
    # Two decisions in (a quick start's deal is random: a hand rarely ends sooner than that).
    made = play_until_end(page, stop_after=2)
    assert made == 2
    owner = cluster.owner(room_id)
    assert owner is not None
    acted: Any = page.evaluate("() => document.querySelectorAll('[data-testid=log] li').length")
    owner.kill()
    page.wait_for_timeout(400)
    shot(page, "cluster-reconnecting")
    # The page says it lost the server, reconnects through the balancer, and the other
    # process restores the room: the hand goes on from where it was.
    page.get_by_test_id("hand").wait_for()
    rest = play_until_end(page)
    assert rest > 0
    after = cluster.owner(room_id)
    assert after is not None and after is not owner
    assert page.evaluate("() => document.querySelectorAll('[data-testid=log] li').length") >= acted
    shot(page, "cluster-after-failover")
    assert page_errors == []
