"""Passkeys on a cluster for real (PostgreSQL, Redis, two ``wmq serve``, HAProxy with TLS, as
``wmq cluster --tls-cert`` runs them; docs/scale.md): a ceremony's challenge is in the store, so
a sign-in or a registration works whichever process answers each of its two steps, and each
ticket is good once on any of them. Guesses at transfer codes sent straight to both processes
from a trusted address, claiming 30 client addresses, share one budget (in Redis).
"""

from __future__ import annotations

import os
import shutil
import ssl
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.softkey import SoftKey
from tests.test_server_passkeys import Site, error_of
from tests.test_tls_balancer import self_signed
from weimaque.deploy import postgres as local_postgres
from weimaque.deploy import redis as local_redis
from weimaque.deploy.haproxy import available as haproxy_available
from weimaque.deploy.local import LocalCluster

pytestmark = pytest.mark.skipif(
    not (local_postgres.available() and local_redis.available() and haproxy_available()),
    reason="Debian's postgresql, redis-server and haproxy are not installed (make test does)",
)


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[LocalCluster, ssl.SSLContext]]:
    # PostgreSQL runs as its own user, which must reach the folder.
    folder = Path(tempfile.mkdtemp(prefix="wmq-cluster-"))
    os.chmod(folder, 0o755)
    try:
        pem, crt = self_signed(folder)
        trust = ssl.create_default_context(cafile=str(crt))
        trust.check_hostname = False  # opened as 127.0.0.1, named localhost
        serve = ["--limit", "player_burst=1000", "--limit", "target_guess_burst=10"]
        serve += ["--limit", "target_guess_interval=600"]
        with LocalCluster(folder, servers=2, tls_cert=pem, serve_args=serve) as made:
            yield made, trust
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_ceremonies_through_the_balancer_all_succeed(
    cluster: tuple[LocalCluster, ssl.SSLContext],
) -> None:
    running, trust = cluster
    site = Site(running.port, trust)
    keys = [SoftKey(100 + k) for k in range(10)]
    players = []
    for k, soft in enumerate(keys):
        status, headers, made = site.call("POST", "/api/players", {"name": f"p{k}"})
        assert status == 201 and "secure" in headers["set-cookie"].lower(), made
        players.append(made["player"]["id"])
        status, _, added = site.register(made["key"], soft)
        assert status == 201, (k, added)
    for k, soft in enumerate(keys):
        status, headers, signed = site.sign_in(soft)
        assert status == 200 and signed["player"]["id"] == players[k], (k, signed)
        assert "secure" in headers["set-cookie"].lower()


def test_each_step_on_another_process(cluster: tuple[LocalCluster, ssl.SSLContext]) -> None:
    """The options from one process, the answer to the other (as the balancer's round-robin
    may send them); the ticket then is spent on both."""
    running, _ = cluster
    one, two = (Site(s.port, host=running.port) for s in running.servers)
    status, _, made = one.call("POST", "/api/players", {"name": "甲"})
    assert status == 201, made
    key, soft = made["key"], SoftKey(200)
    status, _, asked = one.call("POST", "/api/me/passkeys/options", key=key)
    assert status == 200, asked
    answer = {"ticket": asked["ticket"], "credential": soft.register(asked["options"], one.origin)}
    status, _, added = two.call("POST", "/api/me/passkeys", answer, key=key)
    assert status == 201, added
    for site in (one, two):
        error_of(site.call("POST", "/api/me/passkeys", answer, key=key), 400, "bad_ticket")
    # The same credential again (on PostgreSQL): a 409, nothing written.
    status, _, asked = two.call("POST", "/api/me/passkeys/options", key=key)
    again = {"ticket": asked["ticket"], "credential": soft.register(asked["options"], one.origin)}
    error_of(one.call("POST", "/api/me/passkeys", again, key=key), 409, "passkey_known")
    status, _, asked = two.call("POST", "/api/players/passkey/options")
    assert status == 200, asked
    answer = {"ticket": asked["ticket"], "credential": soft.sign_in(asked["options"], two.origin)}
    status, _, signed = one.call("POST", "/api/players/passkey", answer)
    assert status == 200 and signed["player"]["name"] == "甲", signed
    for site in (one, two):
        error_of(site.call("POST", "/api/players/passkey", answer), 400, "bad_passkey")
    # Listed by either process, removed through the other.
    [row] = two.call("GET", "/api/me/passkeys", key=key)[2]["passkeys"]
    assert row["id"] == soft.id and row["last_used"] is not None
    assert one.call("DELETE", f"/api/me/passkeys/{soft.id}", key=key)[0] == 200
    assert two.call("GET", "/api/me/passkeys", key=key)[2]["passkeys"] == []


def test_guesses_over_processes_and_addresses_share_one_budget(
    cluster: tuple[LocalCluster, ssl.SSLContext],
) -> None:
    running, _ = cluster
    sites = [Site(s.port) for s in running.servers]
    statuses = []
    for k in range(30):
        spoofed = {"X-Forwarded-For": f"198.51.100.{k + 1}"}
        body = {"code": "ABCD-EFGH"}
        answer = sites[k % 2].call("POST", "/api/players/transfer", body, headers=spoofed)
        statuses.append(answer[0])
    assert statuses[:10] == [404] * 10 and set(statuses[10:]) == {429}, statuses
