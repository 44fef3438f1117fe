"""Every word of the browser UI exists in both languages (src/weimaque/web/js/strings.js).

The pages look words up by key (``t("key")``); a key missing from one language would show the
key itself, or Chinese on an English page. The server's error codes and the review's kinds of
reason are said by the page too, so each has its sentence in both languages.
"""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest

from weimaque.server.wire.common import ErrorCode

WEB = Path(__file__).resolve().parents[1] / "src" / "weimaque" / "web" / "js"
KEY = re.compile(r'^\s+"?([A-Za-z_][\w-]*)"?\s*:', re.M)


def _block(text: str, lang: str) -> set[str]:
    start = text.index(f"\n  {lang}: {{")
    end = text.index("\n  },", start)
    return set(KEY.findall(text[start:end])) - {lang}


STRINGS = (WEB / "strings.js").read_text(encoding="utf-8")
ZH = _block(STRINGS, "zh")
EN = _block(STRINGS, "en")


def _used_keys() -> set[str]:
    used: set[str] = set()
    for path in WEB.glob("*.js"):
        used |= set(re.findall(r'\bt\("([\w-]+)"', path.read_text(encoding="utf-8")))
    return used


def test_both_languages_have_the_same_words() -> None:
    # The presets' descriptions come from the server in both languages (docs/protocol.md §1),
    # not from here.
    assert ZH == EN
    assert not {k for k in ZH if k.startswith("desc_")}


@pytest.mark.parametrize("key", sorted(_used_keys()))
def test_every_word_the_pages_use_is_written(key: str) -> None:
    assert key in ZH and key in EN


@pytest.mark.parametrize("code", typing.get_args(ErrorCode))
def test_every_refusal_of_the_server_is_said(code: str) -> None:
    assert f"code_{code}" in ZH and f"code_{code}" in EN


@pytest.mark.parametrize(
    "kind", ["agrees", "declined_hu", "fed", "gave_up_ting", "preference", "close_call"]
)
def test_every_review_reason_is_said(kind: str) -> None:
    assert f"why_{kind}" in ZH and f"why_{kind}" in EN


@pytest.mark.parametrize("family", ["kind", "tag", "origin", "how", "ev", "bot_level"])
def test_families_of_words_match(family: str) -> None:
    zh = {k for k in ZH if k.startswith(family + "_")}
    assert zh and zh == {k for k in EN if k.startswith(family + "_")}
