// Bots as players see them: a level (新手 / 普通 / 高手 …) in the chosen language; the technical
// name (`greedy`, `mcts:iters=300`) only in a tooltip and the API, for bot authors.
import { t } from "./i18n.js";

// The server's bot kinds (GET /api/presets `bots`), weakest first (docs/bots.md has the ladder).
const LEVELS = {
  random: "bot_level_random",
  policy: "bot_level_policy",
  greedy: "bot_level_greedy",
  net: "bot_level_net",
  mcts: "bot_level_mcts",
  ismcts: "bot_level_ismcts",
};

/** The kind of a bot spec: "mcts:iters=300" → "mcts". */
const kindOf = (spec) => String(spec || "").split(":")[0];

/** A bot's level for players: 新手, 普通, 高手…; a bot the page does not know is just a bot. */
export function botLevel(spec) {
  const key = LEVELS[kindOf(spec)];
  return key ? t(key) : t("bot_level_other");
}

/** The tooltip of a bot seat: what it is, for those who want to know. */
export const botTitle = (spec) => `${t("bot_tech")}: ${spec}`;

/** The server's bot kinds in the order of the ladder (unknown ones last). */
export function byLevel(kinds) {
  const order = Object.keys(LEVELS);
  const rank = (k) => (order.includes(kindOf(k)) ? order.indexOf(kindOf(k)) : order.length);
  return [...kinds].sort((a, b) => rank(a) - rank(b));
}
