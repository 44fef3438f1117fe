// Fair deals in the browser (docs/fairness.md): the commitment shown during a hand, kept per hand,
// and the replay's check that the revealed secret and seed give that commitment.

const seenKey = (roomId, hand) => `wmq.commit.${roomId}.${hand}`;

/** Remember the commitment this browser was shown for a hand (to compare with the record). */
export function noteCommitment(roomId, hand, commitment) {
  if (commitment) localStorage.setItem(seenKey(roomId, hand), commitment);
}

async function sha256Hex(text) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Check a finished hand's record: "verified" when the revealed secret and seed give the
 * published commitment (and it is the one this browser saw, if it saw one), "failed" when
 * not, "none" when the record has no commitment, "unavailable" without WebCrypto.
 * Recomputing the deal from the seed is left to `wmq verify` (RULES §2.2).
 */
export async function checkDeal(roomId, hand, record) {
  const block = record?.fairness;
  if (!block) return "none";
  if (!globalThis.crypto?.subtle) return "unavailable";
  // seed_text: the exact digits (a JSON number past 2^53 loses some in JavaScript).
  const ours = await sha256Hex(`weimaque-deal-v1:${block.secret}:${block.seed_text}`);
  const seen = localStorage.getItem(seenKey(roomId, hand));
  const fits = ours === block.commitment;
  return fits && (!seen || seen === block.commitment) ? "verified" : "failed";
}
