"""偎麻雀's terminal game: a human at one seat against bots, and the replay of saved records.

Everything here talks through a rich ``Console`` and an input function (``prompt -> line``), so
tests can drive a whole match without a terminal. What the human is shown comes only from the seat's
observation and the seat's own event views (RULES §2.1): never another hand, never the stock.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from rich.console import Console
from rich.table import Table
from rich.text import Text

from weimaque.errors import IllegalAction, InvalidNotation, WeimaqueError
from weimaque.games.maque.analysis.arrange import triple_xi
from weimaque.games.maque.bots import Bot, BotView
from weimaque.games.maque.cards import FACE_CHARS, NUM_FACES, RED_FACES, counts_of
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.game.events import Event, Viewer
from weimaque.games.maque.game.observation import observation, shouxing_viewer
from weimaque.games.maque.game.record import hand_record, start_from_record
from weimaque.games.maque.game.state import NUM_SEATS, GameState
from weimaque.games.maque.match import Match, Settlement, replay_match
from weimaque.games.maque.notation import Meld, parse_cards
from weimaque.games.maque.scoring.breakdown import Breakdown
from weimaque.games.maque.scoring.explain import breakdown_json
from weimaque.games.maque.scoring.waits import waits
from weimaque.games.maque.terminal.render import breakdown_renderable, cards_text

InputFn = Callable[[str], str]

#: How seat ``viewer + k`` is named for the viewer: 你, 下家 (next in turn), 上家 (previous).
RELATIVE_NAMES: Final = ("你", "下家", "上家")
KIND_WORDS: Final = {"peng": "碰", "wei": "偎", "chi": "吃"}
FACE_DOWN: Final = "▮▮▮"
SOURCE_WORDS: Final = {"self": "自摸", "other": "别家揭的牌", "deal": "起手"}
QUIT_WORDS: Final = frozenset({"q", "quit", "exit", "退出"})
HINT_WORDS: Final = frozenset({"?", "？", "h", "help", "提示"})


class QuitGame(Exception):
    """The human asked to stop (``q``) or the input ended."""


def seat_name(seat: int, viewer: Viewer) -> str:
    """A seat as the viewer calls it: 你/下家/上家 for a seat viewer, 座N otherwise."""
    if isinstance(viewer, int):
        return RELATIVE_NAMES[(seat - viewer) % NUM_SEATS]
    return f"座{seat}"


def event_words(view: Mapping[str, Any], viewer: Viewer) -> str:
    """One event view (``Event.view(viewer)``) in words, e.g. ``下家 碰 七 (上家的牌)``."""
    kind = view["type"]
    who = seat_name(int(view["seat"]), viewer)
    card = view.get("card")
    if kind == "dealt":
        dealer = " (庄)" if view["dealer"] == view["seat"] else ""
        cards = f": {view['cards']}" if "cards" in view else ""
        return f"{who}{dealer} 起手 {view['count']} 张{cards}"
    if kind == "drew":
        shown = card if card is not None else "▮"
        return f"{who} 揭 {shown} (底牌余 {view['stock_left']})"
    if kind == "wei":
        return f"{who} 偎 {card * 3 if card is not None else FACE_DOWN}"
    if kind == "discard":
        return f"{who} 出 {card}"
    if kind == "release":
        return f"{who} 弃 {card} (揭的牌无人要)"
    if kind == "peng":
        return f"{who} 碰 {card} ({seat_name(int(view['from']), viewer)}的牌)"
    if kind == "chi":
        source = int(view["from"])
        whose = "自己揭的" if source == view["seat"] else f"{seat_name(source, viewer)}的"
        return f"{who} 吃 {view['run']} ({card} 是{whose})"
    if kind == "dead":
        return f"{who} 死手: 无牌可出, 本局不能再胡"
    if kind == "declined_hu":
        return f"{who} 过 (不胡 {card})"
    if kind == "hu":
        if view["source"] == "deal":
            return f"{who} 胡! 起手 {view.get('deal_pattern')}, 手牌 {view['hand']}"
        total = view["breakdown"]["total"]
        return (
            f"{who} 胡 {card}! ({SOURCE_WORDS.get(view['source'], view['source'])}) "
            f"手牌 {view['hand']}, 总息 {total}"
        )
    if kind == "chou":
        return "臭: 底牌揭完, 无人胡"
    return f"{who} {kind}"


def events_words(events: Iterable[Event], viewer: Viewer) -> list[str]:
    """The events this viewer may see, in words, in order."""
    return [event_words(v, viewer) for e in events if (v := e.view(viewer)) is not None]


def hand_renderable(faces: Sequence[int]) -> Text:
    """A concealed hand: small faces, then big faces, red in red; 砍 marked."""
    small = sorted(f for f in faces if f < 10)
    big = sorted(f for f in faces if f >= 10)
    text = Text("小 ")
    text.append_text(cards_text(small) if small else Text("—"))
    text.append("   大 ")
    text.append_text(cards_text(big) if big else Text("—"))
    text.append(f"   ({len(faces)} 张)")
    counts = counts_of(faces)
    kan = [f for f in range(NUM_FACES) if counts[f] >= 3]
    if kan:
        text.append("   砍 ")
        text.append_text(cards_text(kan))
    return text


def meld_text(meld: Mapping[str, Any]) -> Text:
    """One meld of an observation: ``碰七七七``; a 偎 hidden from the viewer as ▮▮▮."""
    if meld["cards"] is None:
        return Text("偎" + FACE_DOWN, style="dim")
    text = Text(KIND_WORDS[meld["kind"]])
    text.append_text(cards_text(parse_cards(meld["cards"])))
    return text


def table_renderable(obs: Mapping[str, Any], title: str = "") -> Table:
    """The table as one seat sees it: melds, discard rows, hand sizes, dealer, scores."""
    viewer = obs["viewer"]
    table = Table(title=title or None, show_edge=False, pad_edge=False, title_justify="left")
    table.add_column("座")
    table.add_column("手", justify="right")
    table.add_column("明牌 (组)")
    table.add_column("河 (出过的牌)")
    table.add_column("分", justify="right")
    order = [(viewer + k) % NUM_SEATS for k in (1, 2, 0)] if isinstance(viewer, int) else [0, 1, 2]
    for s in order:
        name = seat_name(s, viewer)
        if s == obs["dealer"]:
            name += " 庄"
        if obs["dead"][s]:
            name += " 死手"
        melds = Text(" ").join(meld_text(m) for m in obs["melds"][s]) if obs["melds"][s] else ""
        row = cards_text(parse_cards(obs["rows"][s])) if obs["rows"][s] else ""
        table.add_row(name, str(obs["hand_sizes"][s]), melds, row, str(obs["scores"][s]))
    return table


def own_melds(obs: Mapping[str, Any]) -> list[Meld]:
    """The viewer's own melds from its observation (its own 偎 are always visible to it)."""
    out: list[Meld] = []
    for m in obs["melds"][obs["viewer"]]:
        out.append(Meld.make(m["kind"], parse_cards(m["cards"])))
    return out


def xi_now(melds: Sequence[Meld], hand: Sequence[int]) -> tuple[int, list[str]]:
    """息 held now: 碰 and 偎 melds plus 砍 in hand (RULES §6.4), with the parts in words."""
    parts: list[str] = []
    total = 0
    for m in melds:
        if m.kind == "chi":
            continue
        xi = triple_xi(m.kind, m.faces[0])
        parts.append(f"{KIND_WORDS[m.kind]}{FACE_CHARS[m.faces[0]]} {xi}")
        total += xi
    for f in range(NUM_FACES):
        if hand[f] >= 3:
            xi = triple_xi("kan", f)
            parts.append(f"砍{FACE_CHARS[f]} {xi}")
            total += xi
    return total, parts


def _waits_words(melds: Sequence[Meld], hand: Sequence[int], rules: Any) -> str:
    found = waits(melds, tuple(hand), rules)
    if not found:
        return ""
    return " ".join(f"{FACE_CHARS[w.face]}({w.best})" for w in found)


def hint_lines(state: GameState, seat: int) -> list[str]:
    """The ``?`` hints for a seat: 息 held now, and its waits (after each discard if it must 出)."""
    obs = observation(state, seat)
    melds = own_melds(obs)
    hand = list(counts_of(parse_cards(obs["hand"])) if obs["hand"] else counts_of([]))
    total, parts = xi_now(melds, hand)
    min_xi = state.rules.min_xi
    lines = [f"你现在的息: {' + '.join(parts) if parts else '无'} = {total} 息 (胡至少 {min_xi})"]
    if obs["dead"][seat]:
        lines.append("你是死手: 本局不能胡")
        return lines
    held = sum(hand) + 3 * len(melds)
    if held == 19:
        words = _waits_words(melds, hand, state.rules)
        lines.append(f"听: {words}  (括号里是最好的总息)" if words else "还没听牌")
    elif held == 20 and obs["phase"] == "discard" and obs.get("to_act"):
        rows = []
        for action in state.legal_actions(seat):
            assert action.face is not None
            rest = list(hand)
            rest[action.face] -= 1
            words = _waits_words(melds, rest, state.rules)
            if words:
                rows.append(f"  出{FACE_CHARS[action.face]} → 听 {words}")
        if rows:
            lines.append("出牌后听 (括号里是最好的总息):")
            lines.extend(rows)
        else:
            lines.append("出哪张都还没听牌")
    return lines


def parse_choice(text: str, legal: Sequence[Action], state: GameState, seat: int) -> Action:
    """The action a typed line means: an option number, or notation (``出 三``, ``碰``, ``3x``).

    Raises :class:`InvalidNotation` or :class:`IllegalAction` with the reason it is refused.
    """
    raw = text.strip()
    if not raw:
        raise InvalidNotation("empty input: type an option number, an action such as 出 三, or ?")
    if raw.isdigit():
        k = int(raw)
        if not 1 <= k <= len(legal):
            raise InvalidNotation(f"no option {k}: choose 1..{len(legal)}")
        return legal[k - 1]
    try:
        action = Action.parse(raw)
    except InvalidNotation:
        # A bare card while discarding means 出 that card (``三``, ``3x``).
        if state.phase != "discard":
            raise
        try:
            faces = parse_cards(raw.replace(" ", ""))
        except InvalidNotation:
            faces = []
        if len(faces) != 1:
            raise
        action = Action.discard(faces[0])
    state.verify(seat, action)
    return action


def options_text(legal: Sequence[Action]) -> Text:
    """The legal actions numbered from 1 (``[1]出三  [2]出七``), red faces in red."""
    text = Text()
    for k, action in enumerate(legal, 1):
        if k > 1:
            text.append("  ")
        text.append(f"[{k}]", style="bold")
        word = str(action)
        for ch in word:
            red = ch in FACE_CHARS and FACE_CHARS.index(ch) in RED_FACES
            text.append(ch, style="red" if red else "")
    return text


def should_auto_pass(legal: Sequence[Action]) -> bool:
    """``--auto-pass``: pass a claim window offering only 吃 (no 胡, no 碰) on its own.

    A 吃 makes a run worth 0 息, so it is rarely worth a stop; 碰 (2-4 息) and 胡 are always asked.
    """
    kinds = {a.kind for a in legal}
    return "pass" in kinds and kinds <= {"chi", "pass"}


def settlement_lines(s: Settlement, viewer: Viewer, rules: Any) -> list[str]:
    """What a hand moved, in words: per seat, the 守醒's share, the 留子 pool."""
    pays = "  ".join(f"{seat_name(k, viewer)} {v:+d}" for k, v in enumerate(s.seats))
    lines = [f"结算: {pays}"]
    if rules.shouxing:
        lines.append(f"守醒 得 {s.shouxing:+d}")
    if rules.liuzi:
        lines.append(f"留子池 {s.pool:+d}")
    lines.append(f"下一局庄家: {seat_name(s.next_dealer, viewer)}")
    return lines


def ledger_table(ledger: Mapping[str, Any], viewer: Viewer, rules: Any) -> Table:
    """The match ledger: points per seat, the 守醒's, the 留子 pool left."""
    table = Table(title="总账", show_edge=False, pad_edge=False, title_justify="left")
    table.add_column("")
    table.add_column("分", justify="right")
    for k, v in enumerate(ledger["seats"]):
        table.add_row(seat_name(k, viewer), str(v))
    if rules.shouxing or ledger["shouxing"]:
        table.add_row("守醒", str(ledger["shouxing"]))
    if rules.liuzi or ledger["pool"]:
        table.add_row("留子池", str(ledger["pool"]))
    return table


def result_renderables(
    breakdown: Breakdown | None, winner: int | None, viewer: Viewer
) -> list[Any]:
    """The end of a hand: who won and the full breakdown (as ``wmq score`` shows it), or 臭."""
    if winner is None or breakdown is None:
        return [Text("本局 臭: 无人胡, 无人付分", style="yellow")]
    return [
        Text(f"{seat_name(winner, viewer)} 胡", style="bold"),
        breakdown_renderable(breakdown_json(breakdown)),
    ]


@dataclass
class TerminalGame:
    """A match with the human at ``human`` (seat 0) and bots at the other seats."""

    console: Console
    ask: InputFn
    bots: Sequence[Bot | None]
    rng: random.Random
    human: int = 0
    auto_pass: bool = False
    on_hand_end: Callable[[Match], None] | None = None
    _shown: int = field(default=0, init=False)

    def say(self, *things: Any) -> None:
        """Print to the console (no markup, no highlighting)."""
        self.console.print(*things, markup=False, highlight=False)

    def play_match(self, match: Match) -> None:
        """Play hands until the match is over, then show the ledger."""
        self.say(f"规则 {match.rules.id}  局数 {match.rules.match_hands}  seed {match.seed}")
        while not match.is_over():
            number = len(match.hands) + 1
            state = match.start_hand()
            self.say(Text(f"\n━━ 第 {number}/{match.rules.match_hands} 局 ━━", style="bold"))
            self.play_hand(state)
            settlement = match.finish_hand()
            self.show_result(state, settlement, match)
            if self.on_hand_end is not None:
                self.on_hand_end(match)
            if not match.is_over():
                self.read("回车开始下一局 (q 退出) > ")
        self.say(Text("\n━━ 比赛结束 ━━", style="bold"))
        if match.final_share is not None:
            share = "  ".join(
                f"{seat_name(k, self.human)} +{v}" for k, v in enumerate(match.final_share)
            )
            self.say(f"留子池余分平分: {share}")
        self.say(ledger_table(match.ledger(), self.human, match.rules))

    def read(self, prompt: str) -> str:
        """One line of input; ``q`` or the end of input stops the game."""
        try:
            line = self.ask(prompt)
        except EOFError as exc:
            raise QuitGame from exc
        if line.strip().lower() in QUIT_WORDS:
            raise QuitGame
        return line

    def flush_events(self, state: GameState) -> None:
        """Print the events not yet shown, as the human's seat sees them."""
        for line in events_words(state.events[self._shown :], self.human):
            self.say(line)
        self._shown = len(state.events)

    def play_hand(self, state: GameState) -> None:
        """Play one hand to its end."""
        self._shown = 0
        while not state.is_terminal():
            self.flush_events(state)
            seat = state.current_player()
            bot = self.bots[seat] if seat != self.human else None
            if bot is None:
                action = self.decide(state, seat)
            else:
                action = bot.act(BotView.of(state, seat), self.rng)
            state.apply(seat, action)
        self.flush_events(state)

    def show_table(self, state: GameState, seat: int) -> None:
        """The table, the hand and the open claim as ``seat`` sees them."""
        obs = observation(state, seat)
        title = f"庄家 {seat_name(obs['dealer'], seat)}   底牌余 {obs['stock_left']}"
        self.say(table_renderable(obs, title))
        self.say(Text("你的手牌  ").append_text(hand_renderable(parse_cards(obs["hand"] or ""))))
        if obs["claim"] is not None:
            c = obs["claim"]
            verb = {"discard": "出", "draw": "揭", "wei": "偎", "release": "弃"}[c["origin"]]
            shown = c["card"] if c["card"] is not None else "▮"
            self.say(f"桌上: {seat_name(c['from'], seat)} {verb} {shown}")

    def decide(self, state: GameState, seat: int) -> Action:
        """Ask the human until a legal action is chosen (or auto-pass where allowed)."""
        legal = state.legal_actions(seat)
        if self.auto_pass and should_auto_pass(legal):
            self.say(f"(自动过: {' '.join(str(a) for a in legal if a.kind != 'pass')})")
            return Action("pass")
        self.show_table(state, seat)
        what = "出牌" if state.phase == "discard" else "要不要"
        while True:
            self.say(Text(f"{what}: ").append_text(options_text(legal)))
            line = self.read(f"你的选择 [1-{len(legal)} / 出 三 / ? 提示 / q 退出] > ")
            if line.strip() in HINT_WORDS:
                for hint in hint_lines(state, seat):
                    self.say(hint)
                continue
            try:
                return parse_choice(line, legal, state, seat)
            except (IllegalAction, InvalidNotation) as exc:
                self.say(Text(f"不行: {exc}", style="red"))

    def show_result(self, state: GameState, settlement: Settlement, match: Match) -> None:
        """The end of a hand: the breakdown, the payments, the 留子 pool."""
        r = state.result
        assert r is not None
        for part in result_renderables(r.breakdown, r.winner, self.human):
            self.say(part)
        for line in settlement_lines(settlement, self.human, match.rules):
            self.say(line)
        if match.rules.liuzi:
            self.say(f"留子池现有 {match.pool}")
        scores = "  ".join(f"{seat_name(k, self.human)} {v}" for k, v in enumerate(match.scores))
        self.say(f"比分: {scores}")


# ----------------------------------------------------------------- replay


def record_hands(record: Mapping[str, Any]) -> tuple[bool, list[dict[str, Any]]]:
    """``(is_match, hand records)`` of a saved hand or match record, or a server's hand."""
    if isinstance(record.get("hands"), list):
        return True, list(record["hands"])
    if isinstance(record.get("record"), dict):  # GET /api/rooms/{id}/hands/{n}
        return False, [dict(record["record"])]
    if isinstance(record.get("actions"), list):
        return False, [dict(record)]
    raise WeimaqueError("not a hand or match record: it has neither 'hands' nor 'actions'")


@dataclass
class Replayer:
    """Steps through a record event by event as one viewer sees it."""

    console: Console
    viewer: Viewer
    ask: InputFn | None = None

    def say(self, *things: Any) -> None:
        """Print to the console (no markup, no highlighting)."""
        self.console.print(*things, markup=False, highlight=False)

    def step(self) -> None:
        """Wait for Enter when stepping interactively; ``q`` stops, end of input shows the rest."""
        if self.ask is None:
            return
        try:
            line = self.ask("")
        except EOFError:
            self.ask = None
            return
        if line.strip().lower() in QUIT_WORDS:
            raise QuitGame

    def replay(self, record: Mapping[str, Any], hand: int | None = None) -> None:
        """Replay every hand of a record (or hand number ``hand``, from 1), then the ledger."""
        is_match, hands = record_hands(record)
        numbers = list(range(1, len(hands) + 1))
        if hand is not None:
            if not 1 <= hand <= len(hands):
                raise WeimaqueError(f"no hand {hand}: the record holds {len(hands)}")
            numbers = [hand]
        rules = None
        for k in numbers:
            rules = self.replay_hand(hands[k - 1], k, len(hands))
        if is_match and hand is None and rules is not None:
            match = replay_match(dict(record))
            self.say(Text("\n━━ 比赛结束 ━━", style="bold"))
            self.say(ledger_table(match.ledger(), self.viewer, match.rules))

    def replay_hand(self, record: Mapping[str, Any], number: int, count: int) -> Any:
        """Replay one hand record; return its rules."""
        state = start_from_record(dict(record))
        self.say(
            Text(
                f"\n━━ 第 {number}/{count} 局  规则 {state.rules.id}  "
                f"庄家 {seat_name(state.dealer, self.viewer)}  (视角: {self.viewer_name()}) ━━",
                style="bold",
            )
        )
        shown = 0
        # The 守醒 sees what the hand's ``shouxing_sees`` lets him (RULES §2.1.2).
        viewer = shouxing_viewer(state) if self.viewer == "shouxing" else self.viewer
        actions = [(int(seat), Action.parse(text)) for seat, text in record["actions"]]
        for k in range(len(actions) + 1):
            for line in events_words(state.events[shown:], viewer):
                self.say(line)
                self.step()
            shown = len(state.events)
            if k < len(actions):
                state.apply(*actions[k])
        recorded = record.get("result")
        if recorded is not None and hand_record(state)["result"] != recorded:
            raise WeimaqueError(f"hand {number}: replay does not reproduce the recorded result")
        r = state.result
        if r is not None:
            for part in result_renderables(r.breakdown, r.winner, self.viewer):
                self.say(part)
        if isinstance(record.get("settlement"), dict):
            s = record["settlement"]
            settlement = Settlement(
                (int(s["seats"][0]), int(s["seats"][1]), int(s["seats"][2])),
                int(s["shouxing"]),
                int(s["pool"]),
                int(s["dealer"]),
                int(s["next_dealer"]),
            )
            for line in settlement_lines(settlement, self.viewer, state.rules):
                self.say(line)
        return state.rules

    def viewer_name(self) -> str:
        """The viewer in words."""
        if isinstance(self.viewer, int):
            return f"座{self.viewer}"
        if not isinstance(self.viewer, str):
            return "守醒"  # one who sees some seats only (RULES §2.1.2)
        return {"shouxing": "守醒", "all": "全部", "public": "旁观"}[self.viewer]
