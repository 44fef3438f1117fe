// The table's sound effects, synthesised with Web Audio (no sound files): short envelopes of
// oscillators and filtered noise, one shape per cue. Nothing plays before the player's first
// tap or key (browsers require a gesture; docs/web.md "Sound and voice"), and the one
// AudioContext is created in that gesture. The sound toggle is remembered per device.

const KEY = "wmq.sound";
let ctx = null;
let noiseBuffer = null;
let interacted = false;

/** Whether the player has touched the page yet (nothing may sound before). */
export const hadGesture = () => interacted;

export const soundOn = () => localStorage.getItem(KEY) !== "off";

/** Turn the sound effects on or off on this device (a tap: the context may start now). */
export function setSoundOn(on) {
  localStorage.setItem(KEY, on ? "on" : "off");
  if (on) wake();
}

function wake() {
  if (!interacted || !soundOn()) return null;
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return null;
  if (!ctx) ctx = new Ctx();
  if (ctx.state === "suspended") ctx.resume().catch(() => {});
  return ctx;
}

function firstGesture() {
  interacted = true;
  wake();
  for (const kind of ["pointerdown", "keydown"]) window.removeEventListener(kind, firstGesture, true);
}
for (const kind of ["pointerdown", "keydown"]) window.addEventListener(kind, firstGesture, true);

/** A tone from `at` seconds on: frequency `f` (gliding to `to`), a quick attack, a decay. */
function tone(at, f, dur, { type = "sine", gain = 0.2, to = null } = {}) {
  const osc = ctx.createOscillator();
  const amp = ctx.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(f, at);
  if (to) osc.frequency.exponentialRampToValueAtTime(to, at + dur);
  amp.gain.setValueAtTime(0.0001, at);
  amp.gain.exponentialRampToValueAtTime(gain, at + 0.008);
  amp.gain.exponentialRampToValueAtTime(0.0001, at + dur);
  osc.connect(amp).connect(ctx.destination);
  osc.start(at);
  osc.stop(at + dur + 0.02);
}

/** A burst of white noise through a filter: the click of a card on the table. */
function noise(at, dur, { freq = 2000, q = 1, type = "bandpass", gain = 0.3 } = {}) {
  if (!noiseBuffer) {
    noiseBuffer = ctx.createBuffer(1, Math.ceil(ctx.sampleRate * 0.3), ctx.sampleRate);
    const data = noiseBuffer.getChannelData(0);
    let seed = 7; // a fixed pseudo-random noise: the same click every time
    for (let i = 0; i < data.length; i++) {
      seed = (seed * 16807) % 2147483647;
      data[i] = seed / 1073741823.5 - 1;
    }
  }
  const src = ctx.createBufferSource();
  const filter = ctx.createBiquadFilter();
  const amp = ctx.createGain();
  src.buffer = noiseBuffer;
  filter.type = type;
  filter.frequency.value = freq;
  filter.Q.value = q;
  amp.gain.setValueAtTime(gain, at);
  amp.gain.exponentialRampToValueAtTime(0.0001, at + dur);
  src.connect(filter).connect(amp).connect(ctx.destination);
  src.start(at);
  src.stop(at + dur + 0.02);
}

// One shape per cue, distinct by ear: a card laid (出), turned up (摸), the claims, the win,
// the hand's end, our turn, the clock running out, a chat line.
const CUES = {
  // A new hand: the shuffle, a run of soft clicks.
  deal: (t) => {
    for (const d of [0, 0.06, 0.12, 0.2]) noise(t + d, 0.04, { freq: 2600, q: 0.8, gain: 0.22 });
  },
  discard: (t) => {
    noise(t, 0.05, { freq: 1800, q: 1.2, gain: 0.45 });
    tone(t, 180, 0.09, { gain: 0.25, to: 90 });
  },
  draw: (t) => {
    noise(t, 0.07, { freq: 3500, type: "highpass", gain: 0.18 });
    tone(t + 0.02, 620, 0.06, { type: "triangle", gain: 0.08 });
  },
  chi: (t) => {
    tone(t, 520, 0.09, { type: "triangle", gain: 0.2 });
    tone(t + 0.08, 780, 0.12, { type: "triangle", gain: 0.2 });
  },
  peng: (t) => {
    for (const d of [0, 0.09]) {
      noise(t + d, 0.05, { freq: 1200, gain: 0.4 });
      tone(t + d, 220, 0.1, { type: "square", gain: 0.08, to: 140 });
    }
  },
  // 杠 (三丁拐): four tiles laid down, three knocks.
  gang: (t) => {
    for (const d of [0, 0.08, 0.16]) {
      noise(t + d, 0.05, { freq: 1000, gain: 0.4 });
      tone(t + d, 200, 0.1, { type: "square", gain: 0.08, to: 120 });
    }
  },
  wei: (t) => {
    tone(t, 150, 0.18, { gain: 0.28, to: 110 });
    noise(t, 0.08, { freq: 500, type: "lowpass", gain: 0.3 });
  },
  hu: (t) => {
    [523, 659, 784, 1047].forEach((f, i) => tone(t + i * 0.09, f, 0.3, { type: "triangle", gain: 0.18 }));
  },
  end: (t) => {
    tone(t, 660, 0.25, { gain: 0.15 });
    tone(t + 0.2, 440, 0.45, { gain: 0.15 });
  },
  turn: (t) => {
    tone(t, 880, 0.3, { gain: 0.12 });
    tone(t, 1760, 0.2, { gain: 0.04 });
  },
  hurry: (t) => tone(t, 1250, 0.05, { type: "square", gain: 0.07 }),
  chat: (t) => tone(t, 420, 0.08, { gain: 0.15, to: 900 }),
};

/** Play `cue` after `delay` seconds; false when it cannot sound (muted, no gesture yet). */
export function playSound(cue, delay = 0) {
  const shape = CUES[cue];
  if (!shape || !wake()) return false;
  shape(ctx.currentTime + 0.01 + delay);
  return true;
}
