// Cards that move (docs/web.md, "Cards that move"): a discard flies from its seat to where it
// now lies, a drawn card from the stock to the middle, a claimed card from the middle to the
// claimer's melds, and a 胡 bursts over the winner's seat. The page is redrawn first, so every
// card is already in its place and takes clicks: a flight is a clone over it (FLIP, with the Web
// Animations API) that no pointer reaches, and the real card is hidden only while it flies.
// Nothing plays under prefers-reduced-motion, in a hidden tab, after a snapshot, or when the
// page has fallen behind (more than one message before a frame could be painted, or a message of
// many events): the table then simply shows where things are.

/** How long a card flies, and how long the 胡 burst lasts (ms): short, never in the way. */
export const FLY_MS = 320;
export const HU_MS = 400;
/** A message with more events than this is a catch-up, not one move to watch. */
const MAX_EVENTS = 3;

const reduced = () => window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
const seatNode = (seat) => document.querySelector(`[data-testid=seat-${seat}]`);
const lastOf = (root, selector) => {
  const all = root ? root.querySelectorAll(selector) : [];
  return all.length ? all[all.length - 1] : null;
};

/** Where a seat's cards leave from: its hand (ours) or its header (another seat). */
function seatSource(seat) {
  const node = seatNode(seat);
  if (!node) return null;
  return node.querySelector("[data-testid=hand]") || node.querySelector(".seat-head") || node;
}

/** Where a card that left `seat` now lies: the middle while it is claimed, else that seat's row. */
function lyingCard(seat, face) {
  const claimed = face && document.querySelector(`[data-testid=claim] .card[data-face="${face}"]`);
  if (claimed) return claimed;
  // The row's newest card, if it is this one (a claimed card lies in a meld: its own flight).
  const last = lastOf(seatNode(seat)?.querySelector("[data-testid=row]"), ".card");
  return last && last.dataset.face === face ? last : null;
}

const lastMeld = (seat) => lastOf(seatNode(seat)?.querySelector("[data-testid=melds]"), ".meld");
const middle = () => document.querySelector("[data-testid=claim]");
const stock = () => document.querySelector("[data-testid=stock]");

/** The flights of one message's events: [{from: () => element | rect, to: () => element}]. */
function plan(events, mySeat, skipOwnDiscard) {
  const out = [];
  for (const ev of events) {
    if (ev.type === "discard" || ev.type === "release") {
      if (ev.seat === mySeat && skipOwnDiscard) continue; // it flew when the server took it
      out.push({ from: () => seatSource(ev.seat), to: () => lyingCard(ev.seat, ev.card) });
    } else if (ev.type === "drew") {
      out.push({
        from: stock,
        to: () => (ev.card ? lyingCard(ev.seat, ev.card) : lastMeld(ev.seat)),
      });
    } else if (ev.type === "peng" || ev.type === "chi" || ev.type === "wei") {
      out.push({ from: middle, to: () => lastMeld(ev.seat) });
    } else if (ev.type === "hu") {
      out.push({ hu: ev.seat });
    }
  }
  return out;
}

function rectOf(x) {
  if (!x) return null;
  const r = x.getBoundingClientRect ? x.getBoundingClientRect() : x;
  return r.width || r.height ? r : null;
}

export class Motion {
  constructor() {
    this.queue = []; // flights of the messages since the last frame
    this.frame = 0;
    this.live = new Map(); // running Animation → its clean-up
    this.played = 0;
    this.skipped = 0;
    this.ownDiscard = false; // our last 出 flew at its ack: its discard event does not fly again
    this.mark();
  }

  /** For tests and styles: `data-anim` (running), `data-anim-played`, `data-anim-skipped`. */
  mark() {
    const d = document.body.dataset;
    d.anim = String(this.live.size);
    d.animPlayed = String(this.played);
    d.animSkipped = String(this.skipped);
  }

  blocked() {
    return reduced() || document.hidden;
  }

  /** Before `msg` changes the page: the place our own discard leaves from, read while the
   * card still lies in our hand. */
  before(msg, s) {
    if (msg.type !== "ack") return null;
    const a = msg.actor;
    if (!a || a.seat !== s.you.seat || !String(a.action).startsWith("出")) return null;
    const face = String(a.action).slice(1);
    const from = rectOf(lastOf(document.querySelector("[data-testid=hand]"), `.card[data-face="${face}"]`));
    if (!from) return null;
    return [{ from: () => from, to: () => document.querySelector(`[data-testid=claim] .card[data-face="${face}"]`) }];
  }

  /** After the page shows `msg`: its flights, played at the next frame. */
  after(msg, s, early) {
    let flights = [];
    if (msg.type === "snapshot") {
      // Caught up at once (a join, a reconnect): whatever was waiting to play is old news.
      this.skip(this.queue.flat().length);
      this.queue = [];
      this.ownDiscard = false;
      return;
    }
    if (msg.type === "ack" && early) {
      flights = early;
      this.ownDiscard = true;
    } else if (msg.type === "events") {
      const skipOwn = this.ownDiscard;
      this.ownDiscard = false;
      if (msg.hand_number !== s.handNumber) return;
      flights = plan(msg.events || [], s.you.seat, skipOwn);
      if ((msg.events || []).length > MAX_EVENTS) {
        this.skip(flights.length);
        return;
      }
    }
    if (!flights.length) return;
    if (this.blocked()) {
      this.skip(flights.length);
      return;
    }
    this.queue.push(flights);
    if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
  }

  skip(n) {
    if (!n) return;
    this.skipped += n;
    this.mark();
  }

  flush() {
    this.frame = 0;
    const batches = this.queue;
    this.queue = [];
    // Several messages before one frame: this seat has fallen behind; show the table as it is.
    if (batches.length > 1 || this.blocked()) {
      this.skip(batches.flat().length);
      return;
    }
    for (const [a, end] of [...this.live]) {
      a.finish(); // a new move: the last one lands at once
      end();
    }
    for (const f of batches[0] || []) {
      if (f.hu !== undefined) this.burst(f.hu);
      else this.fly(f.from(), f.to());
    }
  }

  track(animation, done) {
    const end = () => {
      if (!this.live.delete(animation)) return;
      done();
      this.mark();
    };
    this.live.set(animation, end);
    this.played++;
    this.mark();
    animation.addEventListener("finish", end);
    animation.addEventListener("cancel", end);
  }

  /** A clone of `target` flies from `source` (an element or a rect) onto it. */
  fly(source, target) {
    const from = rectOf(source);
    const to = rectOf(target);
    if (!from || !to || !target.animate) return;
    const clone = target.cloneNode(true);
    clone.removeAttribute("data-testid");
    clone.classList.add("flying");
    Object.assign(clone.style, {
      left: `${to.left}px`,
      top: `${to.top}px`,
      width: `${to.width}px`,
      height: `${to.height}px`,
    });
    document.body.append(clone);
    target.style.visibility = "hidden";
    const dx = from.left + from.width / 2 - (to.left + to.width / 2);
    const dy = from.top + from.height / 2 - (to.top + to.height / 2);
    const scale = Math.max(0.5, Math.min(1.4, Math.min(from.width, 60) / to.width));
    const animation = clone.animate(
      [
        { transform: `translate(${dx}px, ${dy}px) scale(${scale})`, opacity: 0.6 },
        { transform: "translate(0, 0) scale(1)", opacity: 1 },
      ],
      { duration: FLY_MS, easing: "cubic-bezier(.2, .7, .3, 1)" },
    );
    this.track(animation, () => {
      clone.remove();
      target.style.visibility = "";
    });
  }

  /** 胡: a gold burst with the word over the winner's seat. */
  burst(seat) {
    const at = rectOf(seatNode(seat)?.querySelector(".seat-head") || seatNode(seat));
    if (!at) return;
    const node = document.createElement("div");
    node.className = "hu-burst";
    node.setAttribute("aria-hidden", "true");
    node.dataset.seat = String(seat);
    Object.assign(node.style, { left: `${at.left + at.width / 2}px`, top: `${at.top + at.height / 2}px` });
    const rays = Array.from({ length: 12 }, (_, i) => {
      const a = (i * Math.PI) / 6;
      const [x1, y1, x2, y2] = [Math.cos(a) * 22, Math.sin(a) * 22, Math.cos(a) * 58, Math.sin(a) * 58];
      return `<line x1="${x1.toFixed(1)}" y1="${y1.toFixed(1)}" x2="${x2.toFixed(1)}" y2="${y2.toFixed(1)}"/>`;
    }).join("");
    node.innerHTML =
      `<svg class="rays" viewBox="-64 -64 128 128" width="128" height="128">` +
      `<circle r="30"/><g>${rays}</g></svg><span class="word">胡</span>`;
    document.body.append(node);
    const [svg, word] = node.children;
    const rayAnim = svg.animate(
      [
        { transform: "scale(.3) rotate(0deg)", opacity: 0 },
        { transform: "scale(1) rotate(20deg)", opacity: 1, offset: 0.4 },
        { transform: "scale(1.5) rotate(40deg)", opacity: 0 },
      ],
      { duration: HU_MS, easing: "ease-out" },
    );
    word.animate(
      [
        { transform: "scale(.2)", opacity: 0 },
        { transform: "scale(1.25)", opacity: 1, offset: 0.45 },
        { transform: "scale(1)", opacity: 0 },
      ],
      { duration: HU_MS, easing: "ease-out" },
    );
    this.track(rayAnim, () => node.remove());
  }
}
