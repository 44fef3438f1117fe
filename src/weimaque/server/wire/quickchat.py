"""Quick chat (快捷语 and 表情): the fixed phrases and emotes a seat may send to its table.

No free text, so there is nothing to moderate: a ``chat`` message names one id of these lists
(docs/protocol.md §2.1), and the browser holds their words in both languages and draws the
emotes (web/js/chat.js). Chat never touches the game or the store. A seat may send a short
burst, then one message every :data:`CHAT_INTERVAL` seconds; more is refused (``rate_limited``).
"""

from __future__ import annotations

from typing import Final

#: The phrases, by id, as the apps' staples (the words are in web/js/strings.js, ``chat_<id>``).
PHRASES: Final = (
    "hurry",  # 快点吧
    "sorry",  # 不好意思
    "nice",  # 打得好
    "again",  # 再来一局
    "hello",  # 大家好
    "thanks",  # 谢谢
    "lucky",  # 手气真好
    "wait",  # 等一下
)
#: The emotes (表情), by id, each drawn by the page.
EMOTES: Final = ("smile", "laugh", "cry", "angry", "wow", "thumbs")

#: Messages a seat may send at once, then one per ``CHAT_INTERVAL`` seconds.
CHAT_BURST: Final = 3
CHAT_INTERVAL: Final = 2.0


def check_phrase(phrase: str) -> str:
    """``phrase`` if it is one of :data:`PHRASES`, else ``ValueError`` quoting it."""
    if phrase not in PHRASES:
        raise ValueError(f"unknown phrase {phrase[:40]!r}; known: {', '.join(PHRASES)}")
    return phrase


def check_emote(emote: str) -> str:
    """``emote`` if it is one of :data:`EMOTES`, else ``ValueError`` quoting it."""
    if emote not in EMOTES:
        raise ValueError(f"unknown emote {emote[:40]!r}; known: {', '.join(EMOTES)}")
    return emote


__all__ = ["CHAT_BURST", "CHAT_INTERVAL", "EMOTES", "PHRASES", "check_emote", "check_phrase"]
