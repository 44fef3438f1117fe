"""The lines a bot is sent (``weimaque.games.lines``) are the ones docs/bot-protocol.md
lists, each
field documented, and a program playing a seat gets only lines of those kinds, in their form."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from weimaque.games import lines
from weimaque.games.lines import KINDS

PROTOCOL_MD = Path(__file__).resolve().parents[1] / "docs" / "bot-protocol.md"


def row(kind: str) -> str:
    """The row of docs/bot-protocol.md's table of messages for the line ``kind``."""
    found = re.search(rf"^\| `{kind}` \|.*$", PROTOCOL_MD.read_text("utf-8"), re.M)
    assert found is not None, f"docs/bot-protocol.md lists no `{kind}` line"
    return found.group(0)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_line_and_field_is_documented(kind: str) -> None:
    text = row(kind)
    fields = set(KINDS[kind].__annotations__) - {"type"}
    missing = sorted(f for f in fields if f"`{f}`" not in text)
    assert not missing, f"the `{kind}` row does not document {missing}"


def check_line(line: dict[str, Any]) -> None:
    """``line`` is of a listed kind, with every field it must have and no other."""
    kind = line.get("type")
    assert kind in KINDS, f"a line of an unlisted kind: {line!r:.200}"
    typed = KINDS[kind]
    keys = set(line)
    assert typed.__required_keys__ <= keys, (kind, sorted(typed.__required_keys__ - keys))
    assert keys <= typed.__required_keys__ | typed.__optional_keys__, (kind, sorted(keys))


@pytest.mark.parametrize(
    ("line", "read"),
    [
        ('{"id": 7, "action": "出三"}', lines.Answer(7, "出三")),
        ('{"id": 7, "action_id": 12}', lines.Answer(7, 12)),
        ('{"id": true, "action": "过"}', lines.Answer(None, "过")),
        ('{"id": 7, "action_id": true}', "no 'action' string or 'action_id' int"),
        ('{"id": 7, "action": 12}', "no 'action' string or 'action_id' int"),
        ("[1, 2]", "not a JSON object: '[1, 2]'"),
        ("hello there", "not JSON: 'hello there'"),
        ("[" * 100_000, "not JSON"),
    ],
)
def test_an_answer_is_read_once_for_every_bot(line: str, read: lines.Answer | str) -> None:
    """Programs on a seat and remote bots answer with the same line (docs/bot-protocol.md)."""
    got = lines.read_answer(line)
    if isinstance(read, str):
        assert isinstance(got, str) and got.startswith(read), got
    else:
        assert got == read
