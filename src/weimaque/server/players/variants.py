"""The contests 战绩 and leaderboards count apart: a variant of a game at its table
(docs/protocol.md §7.3, §7.5).

A finished hand is stored with its game, its preset (``variant``) and its table's ``persons``
(2 at a table of two, RULES §2.5; 3; 4 where four persons take turns at three seats, RULES
§2.1.1). A preset and a table make one contest: their figures are never summed with another's
unless every variant is asked for. Everything here reads the game through the seam (its schema,
and the rules its tables record): a variant the schema lists at another table than its preset's
(偎麻雀's ``quanmingtang-2p``: 全名堂 with ``players`` 2, recorded as ``quanmingtang``) names that
preset at that table.
"""

from __future__ import annotations

import functools
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import JSONResponse

from weimaque.errors import WeimaqueError
from weimaque.games.protocol import TableExtras, TableShape, Variant
from weimaque.games.registry import get_game
from weimaque.server.edge.context import error_response as _error
from weimaque.server.store.accounts import Contest
from weimaque.server.table.options import quoted

#: The persons a table may have (``?persons=N``).
PERSONS: Final = (2, 3, 4)


def persons_of(shape: TableShape) -> int:
    """How many persons sit round a table of this shape."""
    return shape.persons or shape.seats


@functools.cache
def stored_preset(game_id: str, variant_id: str) -> str:
    """The preset a variant's hands are stored under: the id its table's rules are recorded with
    (the game's ``"table"`` capability's ``rules_info``, as a table records them), else the
    variant's own. 偎麻雀's ``quanmingtang-2p`` is stored as ``quanmingtang`` at a table of two."""
    game = get_game(game_id)
    variant = game.schema.variant(variant_id)
    if isinstance(game, TableExtras):
        return str(game.rules_info(game.table_rules(variant.id))["id"])
    return variant.id


def contest_of(game: str, variant: Variant, persons: int | None) -> Contest:
    """The contest a variant of ``game`` names, at ``persons`` or at the variant's own table."""
    table = persons_of(variant.shape) if persons is None else persons
    stored = stored_preset(game, variant.id)
    return Contest(tuple(dict.fromkeys((variant.id, stored))), table)


def variant_param(request: Request, game: str) -> Contest | JSONResponse | None:
    """``?variant=ID&persons=N``: a preset of ``game`` by id or alias (the game's schema says
    which it has) at its own table or at a table of N persons (2..4); None when no variant is
    asked for (every variant); an unknown variant or a bad N is the 400 quoting it."""
    text = request.query_params.get("variant") or None
    count = request.query_params.get("persons") or None
    persons = None
    if count is not None:
        if not count.isdecimal() or len(count) > 2 or int(count) not in PERSONS:
            return _error(400, "bad_request", f"persons must be 2, 3 or 4, not {quoted(count)}")
        persons = int(count)
        if text is None:
            return _error(400, "bad_request", "persons is a variant's table: name the variant")
    if text is None:
        return None
    try:
        variant = get_game(game).schema.variant(text[:64])
    except WeimaqueError as exc:
        return _error(400, "unknown_variant", str(exc))
    return contest_of(game, variant, persons)


def asked_json(game: str, contest: Contest | None) -> dict[str, Any] | None:
    """The contest a read of figures was asked for (``variant_param``), as ``contest_json``
    shows it; None when every variant was."""
    if contest is None:
        return None
    return contest_json(game, contest.presets[-1], contest.persons)


def contest_json(game: str, preset: str | None, persons: int | None) -> dict[str, Any]:
    """A contest as the page shows it: ``{"id", "persons", "name", "name_en"}``, ``id`` the
    variant that names it (``quanmingtang-2p`` for 全名堂 at a table of two) or its preset, with
    ``persons`` where that is not the preset's own table; unknown ones by their stored names."""
    if preset is None:
        return {"id": None, "persons": persons, "name": None, "name_en": None}
    try:
        schema = get_game(game).schema
        own = schema.variant(preset)
    except WeimaqueError:  # a game or a preset this server no longer has
        return {"id": preset, "persons": persons, "name": preset, "name_en": preset}
    if persons is None or persons == persons_of(own.shape):
        return {"id": own.id, "persons": None, "name": own.names.zh, "name_en": own.names.en}
    for v in schema.variants:
        if (
            v.id != own.id
            and persons_of(v.shape) == persons
            and stored_preset(game, v.id) == own.id
        ):
            return {"id": v.id, "persons": None, "name": v.names.zh, "name_en": v.names.en}
    return {
        "id": own.id,
        "persons": persons,
        "name": f"{own.names.zh}（{persons}人）",
        "name_en": f"{own.names.en}, {persons} persons",
    }


__all__ = [
    "PERSONS",
    "asked_json",
    "contest_json",
    "contest_of",
    "persons_of",
    "stored_preset",
    "variant_param",
]
