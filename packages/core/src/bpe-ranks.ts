/**
 * GPT-2's `vocab.json` + `merges.txt` from a byte-pair rank table (tiktoken's format: each token's
 * bytes and its rank, which is also its id). A token's merge is the last step of byte-pair encoding
 * its own bytes with lower-ranked tokens only; merges are listed in rank order. Token strings use
 * GPT-2's byte-level alphabet (Radford et al. 2019, §2.2): printable Latin-1 bytes stand for
 * themselves, the other bytes for the characters from U+0100 on, in byte order.
 */

/** GPT-2's byte → character table. */
export function byteLevelChars(): string[] {
  const printable = (b: number) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const out: string[] = [];
  let next = 256;
  for (let b = 0; b < 256; b++) out[b] = String.fromCodePoint(printable(b) ? b : next++);
  return out;
}

/**
 * `ranks`: token bytes as a latin1 string (one character per byte) → rank. Returns the vocab.json
 * object (with `specials` added) and the merges.txt lines (without the `#version` header).
 */
export function bpeFilesFromRanks(
  ranks: ReadonlyMap<string, number>,
  specials: Record<string, number> = {},
): { vocab: Record<string, number>; merges: string[] } {
  const chars = byteLevelChars();
  const byRank: string[] = [];
  for (const [bytes, r] of ranks) byRank[r] = bytes;
  const toChars = (s: string) => [...s].map((c) => chars[c.charCodeAt(0)]).join('');
  const merges: string[] = [];
  byRank.forEach((bytes, r) => {
    if (bytes.length < 2) return;
    let parts = [...bytes];
    for (;;) {
      let best = -1;
      let bestRank = Infinity;
      for (let i = 0; i + 1 < parts.length; i++) {
        const m = ranks.get(parts[i] + parts[i + 1]);
        if (m !== undefined && m < r && m < bestRank) [best, bestRank] = [i, m];
      }
      if (best < 0) break;
      parts = [...parts.slice(0, best), parts[best] + parts[best + 1], ...parts.slice(best + 2)];
    }
    if (parts.length !== 2)
      throw new Error(
        `bpeFilesFromRanks: token of rank ${r} is not one merge of lower-ranked tokens (${parts.length} parts)`,
      );
    merges.push(`${toChars(parts[0])} ${toChars(parts[1])}`);
  });
  const vocab: Record<string, number> = {};
  byRank.forEach((bytes, r) => (vocab[toChars(bytes)] = r));
  return { vocab: { ...vocab, ...specials }, merges };
}

/** tiktoken's compressed rank text (lines "<ignored> <first rank> <base64 token> …") as a rank table. */
export function parseTiktokenRanks(text: string): Map<string, number> {
  const ranks = new Map<string, number>();
  for (const line of text.split('\n').filter(Boolean)) {
    const [, offset, ...tokens] = line.split(' ');
    tokens.forEach((t, i) => ranks.set(Buffer.from(t, 'base64').toString('latin1'), Number(offset) + i));
  }
  return ranks;
}
