"""A real ``wmq serve`` shows a match's seed once the match is over, never before, and
``wmq verify`` checks the whole match from it (docs/fairness.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.serverkit import running
from weimaque.games.maque.match import Match
from weimaque.games.maque.rules.registry import rules_with

WMQ = [sys.executable, "-c", "from weimaque.cli.app import main; main()"]


def verify(tmp_path: Path, doc: Any, name: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), "utf-8")
    return subprocess.run([*WMQ, "verify", str(path)], capture_output=True, text=True, timeout=60)


def test_the_match_seed_is_shown_once_the_match_is_over(tmp_path: Path) -> None:
    body = {"bots": {"1": "random", "2": "random"}, "bot_delay_ms": 0, "next_seconds": 600}
    with running(tmp_path, {"room_burst": 100}) as server:
        room = server.room(**body, options={"match_hands": 2})["room_id"]
        c = server.ws(room)
        c.reply(c.send(type="sit", seat=0, name="p0"), "welcome")
        c.reply(c.send(type="autoplay", on=True), "snapshot")
        first = c.after(0, lambda m: m["type"] == "hand_end", timeout=30)
        # Between the hands: the finished hand's seed is shown, the match's is not.
        assert first["fairness"]["seed"] is not None
        mid = server.get(f"/api/rooms/{room}/record")
        assert len(mid["hands"]) == 1 and "seed" not in mid and "seed_text" not in mid
        c.send(type="next")
        end = c.until(lambda m: m["type"] == "match_end", timeout=30)
        before = json.dumps(c.log[: c.log.index(end)]) + json.dumps(mid)
        assert str(end["seed"]) not in before  # never shown before the match was over
        record = server.get(f"/api/rooms/{room}/record")
        c.close()
    assert end["seed_text"] == str(end["seed"]) == record["seed_text"] == str(record["seed"])
    # The seed gives the first dealer and every hand's seed, as the server derived them.
    match = Match.new(rules_with(record["rules"], record["overrides"]), record["seed"])
    assert [h["seed"] for h in record["hands"]] == [match.hand_seed(k) for k in range(2)]
    done = verify(tmp_path, record, "match")
    assert done.returncode == 0, done.stderr
    assert "2 deal commitment(s) match" in done.stdout
    assert "every deal follows from the match seed" in done.stdout
    # Another seed, or the commitments taken out, and the record is not verified.
    other = {**record, "seed": record["seed"] ^ 1, "seed_text": str(record["seed"] ^ 1)}
    done = verify(tmp_path, other, "other")
    assert done.returncode == 1 and "NOT VERIFIED: hand 1: seed" in done.stderr, done.stderr
    bare = json.loads(json.dumps(record))
    for hand in bare["hands"]:
        del hand["fairness"]
    done = verify(tmp_path, bare, "bare")
    assert done.returncode == 1, done.stderr
    assert "NOT VERIFIED: hand 1: no deal commitment" in done.stderr
