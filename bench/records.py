"""战绩 under a long record (docs/protocol.md §7.3): one page's time, and the latency of another
player's read (``GET /api/me``'s) while one thread pages 战绩 without pause.

Run: ``.venv/bin/python bench/records.py [--matches 40000] [--hands 5]``. An SQLite store is
filled with ``--matches`` matches of ``--hands`` hands each, every one with the same player at
seat 0 (40,000 × 5: 200,000 hands), through the store's own SQL for the hands' seats and the
matches' summaries. Reported: the median time of the first page of 20 (one indexed query over
``match_seats``), and the median and worst latency of a read of one player's row while another
thread pages 战绩 in a loop (reads run on a pool of connections, docs/protocol.md §4).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from weimaque.server.store import accounts
from weimaque.server.store.store import Store


def fill(store: Store, matches: int, hands: int) -> None:
    """Rooms, matches and their hands' seats, written as ``Store.finish_hand`` writes them."""

    def op(db: Any) -> None:
        for who in ("p", "q"):
            db.execute("INSERT INTO players (id, name, created) VALUES (?, ?, 0)", (who, who))
        for m in range(matches):
            room = f"r{m:06d}"
            db.execute(
                "INSERT INTO rooms (id, created, config, seats, status) VALUES (?, ?, ?, ?, ?)",
                (room, m, "{}", "{}", "over"),
            )
            db.execute(
                "INSERT INTO matches (room_id, rules, overrides, seed, ledger, over, number) "
                "VALUES (?, 'anxiang', '{}', ?, 'null', 1, 1)",
                (room, m),
            )
            rows = [
                (room, h + 1, seat, 1, who, who or "bot", None, None, m * 10 + h, seat - 1)
                for h in range(hands)
                for seat, who in ((0, "p"), (1, "q"), (2, None))
            ]
            db.executemany(
                "INSERT INTO hand_seats (room_id, number, seat, match, player_id, name, bot, "
                "club_id, finished, points, won, chou, xi) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0)",
                rows,
            )
            db.execute(accounts.MATCH_SEATS, (room, 1))

    store.write(op).result(600)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=40_000)
    parser.add_argument("--hands", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "records.db")
        try:
            fill(store, args.matches, args.hands)
            print(f"player p: {args.matches * args.hands} hands in {args.matches} matches")

            def page(db: Any) -> Any:
                return accounts.matches(db, "p", limit=20, before=None)

            times = []
            for _ in range(7):
                started = time.perf_counter()
                store.read(page)
                times.append(time.perf_counter() - started)
            print(f"one page of 20: median {statistics.median(times) * 1000:.2f} ms")
            stop = threading.Event()

            def pager() -> None:
                while not stop.is_set():
                    store.read(page)

            thread = threading.Thread(target=pager)
            thread.start()
            waits = []
            try:
                for _ in range(50):
                    started = time.perf_counter()
                    store.read(lambda db: accounts.player_row(db, "q"))
                    waits.append(time.perf_counter() - started)
                    time.sleep(0.02)
            finally:
                stop.set()
                thread.join()
            print(
                f"another player's read while 战绩 is paged: median "
                f"{statistics.median(waits) * 1000:.2f} ms, worst {max(waits) * 1000:.1f} ms"
            )
        finally:
            store.close()


if __name__ == "__main__":
    main()
