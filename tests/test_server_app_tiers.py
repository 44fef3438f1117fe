"""A real ``wmq serve`` offers the apps' 名堂 tiers (RULES §7.4) in ``GET /api/presets`` and plays
a room at one of them with bots (docs/protocol.md §1)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.serverkit import running
from weimaque.games.maque.rules.config import PATTERN_NAMES
from weimaque.games.maque.rules.registry import APP_PRESET_IDS, PRESET_IDS


def test_presets_offer_the_app_tiers_and_a_room_plays_one(tmp_path: Path) -> None:
    body = {"bots": {"1": "greedy", "2": "greedy"}, "bot_delay_ms": 0, "next_seconds": 600}
    with running(tmp_path, {"room_burst": 100}) as server:
        presets = server.get("/api/presets")
        ids = [p["id"] for p in presets["presets"]]
        assert ids == [*PRESET_IDS, *APP_PRESET_IDS]
        family = {p["id"]: p["family"] for p in presets["presets"]}
        assert {k for k, v in family.items() if v == "app"} == set(APP_PRESET_IDS)
        assert {k for k, v in family.items() if v == "seed"} == set(PRESET_IDS)
        tier = next(p for p in presets["presets"] if p["id"] == "quanmingtang")
        assert tier["name"] == "全名堂"
        # Each of its 名堂 (the deal 名堂 of RULES §7.4.1 too) has a name for the result sheet.
        assert set(tier["patterns"]) | set(tier["optional_patterns"]) <= set(
            presets["pattern_names"]
        )
        assert {"quanqiuren", "hongzhadan", "liuduihong"} <= set(tier["patterns"])

        # A 亲友圈's rules take a tier as a room's body does (docs/protocol.md §7.5).
        status, player = server.post("/api/players", {"name": "阿明"})
        assert status == 201, player
        head = {"Content-Type": "application/json", "Authorization": f"Bearer {player['key']}"}
        rules = json.dumps({"name": "c", "rules": {"preset": "zhizun"}}).encode()
        status, _, made = server.request("/api/clubs", rules, head)
        assert status == 201, made
        assert json.loads(made)["club"]["rules"] == {"preset": "zhizun"}

        # Seeded hands (greedy bots, the human seat on autoplay) that end in a win with app
        # 名堂 (RULES §7.4.2) and in a deal 名堂 (黑炸弹, RULES §7.4.1): each is sent by name.
        for seed, keys in ((12, {"jiding", "yuanyuanding", "kahu"}), (10, {"heizhadan"})):
            created = server.room(
                **body, preset="quanmingtang", seed=seed, options={"match_hands": 1}
            )
            assert created["room"]["rules"] == {
                "id": "quanmingtang",
                "name": "全名堂",
                "overrides": {"match_hands": 1},
            }
            c = server.ws(created["room_id"])
            c.reply(c.send(type="sit", seat=0, name="p0"), "welcome")
            c.reply(c.send(type="autoplay", on=True), "snapshot")
            # The seats are taken at the sit, so the hand is dealt then: a bot's deal 名堂 can
            # end it before the answer to 托管.
            end = c.after(0, lambda m: m["type"] == "hand_end", timeout=60)
            c.close()
            assert end["match_over"] and end["result"]["winner"] is not None, end["result"]
            named = {p["key"]: p["name"] for p in end["breakdown"]["patterns"]}
            assert keys <= set(named), named
            assert all(name == PATTERN_NAMES[key] for key, name in named.items()), named
            record = server.get(f"/api/rooms/{created['room_id']}/record")
            assert record["rules"] == "quanmingtang" and len(record["hands"]) == 1
