"""A transfer code signs a device in once, whoever redeems it at the same moment: two
connections of one PostgreSQL database (two processes of a cluster, docs/scale.md), and two
stores of one database on either engine (docs/protocol.md §7.1)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import psycopg

from weimaque.server.store import accounts
from weimaque.server.store.engines import PostgreSQLConnection
from weimaque.server.store.sql import Connection
from weimaque.server.store.store import open_store


def device(name: str) -> accounts.Device:
    return accounts.Device(f"d-{name}", accounts.digest(f"key-{name}"), name)


def test_two_connections_redeeming_one_code_at_once_sign_in_once(postgres_url: str) -> None:
    open_store(postgres_url).close()  # the schema
    first = PostgreSQLConnection(psycopg.connect(postgres_url, autocommit=True))
    second = PostgreSQLConnection(psycopg.connect(postgres_url, autocommit=True))
    try:
        accounts.create_player(first, "p", "P", device("phone"))
        code = accounts.digest("2345ABCD")
        accounts.add_transfer(first, code, "p", "d-phone")
        # The first process redeems it, its transaction not yet committed ...
        first.execute("BEGIN")
        assert accounts.redeem_transfer(first, code, device("laptop")) == "p"
        got: list[str | None] = []

        def other() -> None:  # ... while the second redeems the same code
            second.execute("BEGIN")
            got.append(accounts.redeem_transfer(second, code, device("tablet")))
            second.execute("COMMIT")

        racer = threading.Thread(target=other)
        racer.start()
        with psycopg.connect(postgres_url, autocommit=True) as watch:
            deadline = time.monotonic() + 10
            while True:  # the second waits for the first's row
                row = watch.execute(
                    "SELECT count(*) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND wait_event_type = 'Lock'"
                ).fetchone()
                if (row is not None and row[0] > 0) or got:
                    break
                assert time.monotonic() < deadline, "the second redeem never ran"
                time.sleep(0.01)
        first.execute("COMMIT")
        racer.join(10)
        assert got == [None]
        keys = first.execute("SELECT id FROM player_keys ORDER BY id").fetchall()
        assert [k[0] for k in keys] == ["d-laptop", "d-phone"]
    finally:
        first.close()
        second.close()


def test_codes_redeemed_by_two_stores_at_once_each_sign_in_once(store_target: str) -> None:
    stores = [open_store(store_target), open_store(store_target)]
    try:
        codes = [accounts.digest(f"code-{k}") for k in range(20)]

        def setup(db: Connection) -> None:
            for k, code in enumerate(codes):
                accounts.create_player(db, f"p{k}", f"P{k}", device(f"first-{k}"))
                accounts.add_transfer(db, code, f"p{k}", f"d-first-{k}")

        stores[0].write(setup).result(10)

        def redeem(which: int, k: int) -> str | None:
            found: list[str | None] = []
            stores[which].write(
                lambda db: found.append(
                    accounts.redeem_transfer(db, codes[k], device(f"s{which}-{k}"))
                )
            ).result(20)
            return found[-1]

        with ThreadPoolExecutor(4) as pool:
            results = list(
                pool.map(lambda job: redeem(*job), [(w, k) for k in range(20) for w in (0, 1)])
            )
        for k in range(20):
            pair = results[2 * k : 2 * k + 2]
            assert sorted(pair, key=str) == [None, f"p{k}"], (k, pair)
        count = stores[0].read(
            lambda db: db.execute("SELECT count(*) FROM player_keys").fetchone()[0]
        )
        assert count == 40  # each player's first device and one more
    finally:
        for store in stores:
            store.close()
