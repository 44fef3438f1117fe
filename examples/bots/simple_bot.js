#!/usr/bin/env node
// A weimaque bot for node, speaking the JSON-lines protocol on stdio (docs/bot-protocol.md).
//
// Run it in the arena:  wmq arena --bots "cmd:node examples/bots/simple_bot.js",greedy,greedy
//
// Only node's standard library. It remembers the discards it has seen in the events and plays:
// every 胡, a 吃 or 碰 when offered, and otherwise the discard whose face is most often
// already on the table (dead cards first), then the loneliest card of the hand.
"use strict";
const readline = require("readline");

// The 20 faces in the protocol's order: small 一..十, then big 壹..拾.
const FACES = "一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾";
const seen = new Array(20).fill(0);

function counts(hand) {
  const held = new Array(20).fill(0);
  for (const ch of hand || "") held[FACES.indexOf(ch)] += 1;
  return held;
}

function neighbours(held, face) {
  let n = 0;
  for (const step of [-2, -1, 1, 2]) {
    const other = face + step;
    if (other >= 0 && other < 20 && Math.floor(other / 10) === Math.floor(face / 10)) {
      n += held[other];
    }
  }
  return n;
}

function choose(request) {
  const legal = request.legal;
  if (legal.includes("胡")) return "胡";
  const claim = legal.find((a) => a.startsWith("吃") || a === "碰");
  if (claim) return claim;
  if (legal.includes("过")) return "过";
  const held = counts(request.observation.hand);
  let best = legal[0];
  let bestScore = -Infinity;
  for (const action of legal) {
    const face = FACES.indexOf(action[1]);
    const score = 10 * seen[face] - 5 * (held[face] - 1) - neighbours(held, face);
    if (score > bestScore) {
      best = action;
      bestScore = score;
    }
  }
  return best;
}

function remember(event) {
  // Discarded and released cards are face up for everyone.
  if ((event.type === "discard" || event.type === "release") && event.card) {
    seen[FACES.indexOf(event.card)] += 1;
  }
}

const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "new_hand") seen.fill(0);
  if (message.type === "event") remember(message.event);
  if (message.type === "request") {
    const answer = { id: message.id, action: choose(message) };
    process.stdout.write(JSON.stringify(answer) + "\n");
  }
});
