#!/usr/bin/env python3
"""A weimaque bot in plain Python, speaking the JSON-lines protocol on stdio (docs/bot-protocol.md).

Run it in the arena:  wmq arena --bots "cmd:python3 examples/bots/simple_bot.py",greedy,greedy

It needs nothing but the standard library. Its play is simple on purpose: take every 胡, take a
碰, never 吃, and discard the card least connected to the rest of the hand.
"""

import json
import sys

# The 20 faces in the protocol's order: small 一..十, then big 壹..拾.
FACES = "一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾"


def counts(hand):
    """Cards held per face index, from the hand string of the observation."""
    held = [0] * 20
    for ch in hand or "":
        held[FACES.index(ch)] += 1
    return held


def isolation(held, face):
    """Lower is better to keep: pairs and neighbours in the same suit make a card useful."""
    score = 10 - 4 * (held[face] - 1)
    for step in (-2, -1, 1, 2):
        other = face + step
        if 0 <= other < 20 and other // 10 == face // 10 and held[other]:
            score -= 3 if abs(step) == 1 else 1
    return score


def choose(request):
    legal = request["legal"]
    if "胡" in legal:
        return "胡"
    if "碰" in legal:
        return "碰"
    if "过" in legal:
        return "过"
    held = counts(request["observation"].get("hand"))
    # A discard is written 出 + the face; keep the most connected cards.
    return max(legal, key=lambda a: (isolation(held, FACES.index(a[1])), a))


def main():
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello" and message["protocol"].split("/")[0] != "weimaque-bot":
            sys.exit("unknown protocol " + message["protocol"])
        if kind == "request":
            answer = {"id": message["id"], "action": choose(message)}
            sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
            sys.stdout.flush()
        # hello, event, new_hand and end need no answer; this bot keeps no memory.


if __name__ == "__main__":
    main()
