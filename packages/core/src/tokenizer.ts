/**
 * A vocabulary tokenizer built from training text. Text is first split around special tokens,
 * then pre-tokenised by a regex into: words with their leading space (" apples"), single digits
 * (one token per digit; a space before a number is its own token), single punctuation marks with
 * an optional leading space, and runs of whitespace. The ten digits and the space are always in
 * the vocabulary. Every piece seen in training text
 * becomes a token; unseen pieces become `<unk>`. Decoding concatenates the pieces, so
 * encode→decode is exact for text whose pieces are all in the vocabulary.
 */
import { promises as fs } from 'node:fs';
import { writeFileAtomic } from './atomic.js';

export const SPECIAL_TOKENS = {
  pad: '<pad>',
  bos: '<bos>',
  eos: '<eos>',
  unk: '<unk>',
  /** Begin / end of a latent span (Coconut's <bot>/<eot>). */
  bot: '<bot>',
  eot: '<eot>',
  /** A placeholder position later filled with a latent vector. */
  latent: '<latent>',
  /** Separates reasoning from the answer. */
  sep: '###',
} as const;
export type SpecialTokenName = keyof typeof SPECIAL_TOKENS;
const SPECIAL_LIST: string[] = Object.values(SPECIAL_TOKENS);

const PIECE = / ?[A-Za-z]+|[0-9]| ?[^\sA-Za-z0-9]|\s+/gu;
/** Always in the vocabulary, seen or not, so any number can be written. */
const ALWAYS = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', ' '];
const FORMAT = 'telepath-tokenizer';
const VERSION = 1;

export interface TokenizerJson {
  format: typeof FORMAT;
  version: number;
  tokens: string[];
}
export interface BuildOptions {
  /** Pieces seen fewer times than this are left out (they encode as <unk>). */
  minCount?: number;
  /** Upper bound on the vocabulary size, specials included (most frequent pieces kept). */
  maxSize?: number;
  /** Extra tokens always included (e.g. a task's fixed markers), treated as specials. */
  extraSpecials?: string[];
}

export class Tokenizer {
  private readonly index: Map<string, number>;
  private readonly specials: string[];
  private readonly specialPattern: RegExp;

  constructor(
    readonly tokens: readonly string[],
    extraSpecials: string[] = [],
  ) {
    for (const s of SPECIAL_LIST) {
      if (!tokens.includes(s)) throw new Error(`Tokenizer: vocabulary lacks the special token ${s}`);
    }
    this.index = new Map();
    tokens.forEach((t, i) => {
      if (this.index.has(t))
        throw new Error(`Tokenizer: duplicate token ${JSON.stringify(t)} at ids ${this.index.get(t)} and ${i}`);
      this.index.set(t, i);
    });
    this.specials = [...SPECIAL_LIST, ...extraSpecials.filter((s) => !SPECIAL_LIST.includes(s))].sort(
      (a, b) => b.length - a.length,
    );
    this.specialPattern = new RegExp(`(${this.specials.map(escapeRegExp).join('|')})`, 'u');
  }

  /** Build from training texts: specials first (fixed ids 0..7), then pieces by frequency. */
  static build(texts: Iterable<string>, options: BuildOptions = {}): Tokenizer {
    const { minCount = 1, maxSize = Infinity, extraSpecials = [] } = options;
    const specials = [...SPECIAL_LIST, ...extraSpecials.filter((s) => !SPECIAL_LIST.includes(s))];
    const probe = new Tokenizer(SPECIAL_LIST, extraSpecials);
    const counts = new Map<string, number>();
    for (const text of texts) {
      for (const piece of probe.pieces(text)) {
        if (probe.specials.includes(piece)) continue;
        counts.set(piece, (counts.get(piece) ?? 0) + 1);
      }
    }
    for (const piece of ALWAYS) counts.delete(piece);
    const ranked = [...counts.entries()]
      .filter(([, n]) => n >= minCount)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .map(([p]) => p);
    const fixed = [...specials, ...ALWAYS];
    if (maxSize < fixed.length)
      throw new Error(
        `Tokenizer.build: maxSize ${maxSize} is below the ${fixed.length} fixed tokens (specials, digits, space)`,
      );
    return new Tokenizer([...fixed, ...ranked.slice(0, maxSize - fixed.length)], extraSpecials);
  }

  get size(): number {
    return this.tokens.length;
  }

  /** Id of a special token by name, or of any token string. */
  id(tokenOrSpecial: SpecialTokenName | string): number {
    const tok = (SPECIAL_TOKENS as Record<string, string>)[tokenOrSpecial] ?? tokenOrSpecial;
    const i = this.index.get(tok);
    if (i === undefined) throw new Error(`Tokenizer: no token ${JSON.stringify(tok)} in the vocabulary`);
    return i;
  }

  get padId(): number {
    return this.id('pad');
  }
  get bosId(): number {
    return this.id('bos');
  }
  get eosId(): number {
    return this.id('eos');
  }
  get unkId(): number {
    return this.id('unk');
  }
  get sepId(): number {
    return this.id('sep');
  }

  /** The regex pieces of a text, special tokens kept whole. */
  pieces(text: string): string[] {
    const out: string[] = [];
    for (const part of text.split(this.specialPattern)) {
      if (part === '') continue;
      if (this.specials.includes(part)) out.push(part);
      else for (const m of part.matchAll(PIECE)) out.push(m[0]);
    }
    return out;
  }

  /** Token ids; pieces not in the vocabulary become <unk>. */
  encode(text: string, o: { bos?: boolean; eos?: boolean } = {}): number[] {
    const ids = this.pieces(text).map((p) => this.index.get(p) ?? this.unkId);
    if (o.bos) ids.unshift(this.bosId);
    if (o.eos) ids.push(this.eosId);
    return ids;
  }

  /** Text of ids; `skipSpecial` drops pad/bos/eos. */
  decode(ids: readonly number[], o: { skipSpecial?: boolean } = {}): string {
    const drop = o.skipSpecial ? new Set([this.padId, this.bosId, this.eosId]) : undefined;
    let s = '';
    for (const id of ids) {
      if (!Number.isInteger(id) || id < 0 || id >= this.tokens.length)
        throw new Error(`Tokenizer.decode: id ${id} outside [0, ${this.tokens.length})`);
      if (drop?.has(id)) continue;
      s += this.tokens[id];
    }
    return s;
  }

  /** How many pieces of the texts encode as <unk> (a vocabulary coverage check). */
  countUnknown(texts: Iterable<string>): { pieces: number; unknown: number } {
    let pieces = 0;
    let unknown = 0;
    for (const t of texts) {
      for (const p of this.pieces(t)) {
        pieces++;
        if (!this.index.has(p)) unknown++;
      }
    }
    return { pieces, unknown };
  }

  toJSON(): TokenizerJson & { extraSpecials: string[] } {
    return {
      format: FORMAT,
      version: VERSION,
      tokens: [...this.tokens],
      extraSpecials: this.specials.filter((s) => !SPECIAL_LIST.includes(s)),
    };
  }

  static fromJSON(json: unknown, source = 'tokenizer JSON'): Tokenizer {
    const j = json as Partial<TokenizerJson & { extraSpecials: string[] }>;
    if (!j || j.format !== FORMAT) throw new Error(`${source}: not a Telepath tokenizer (expected format "${FORMAT}")`);
    if (j.version !== VERSION) throw new Error(`${source}: tokenizer version ${j.version}, expected ${VERSION}`);
    if (!Array.isArray(j.tokens) || !j.tokens.every((t) => typeof t === 'string'))
      throw new Error(`${source}: "tokens" must be an array of strings`);
    return new Tokenizer(j.tokens, j.extraSpecials ?? []);
  }

  async save(path: string): Promise<void> {
    await writeFileAtomic(path, JSON.stringify(this.toJSON()) + '\n');
  }

  static async load(path: string): Promise<Tokenizer> {
    let text: string;
    try {
      text = await fs.readFile(path, 'utf8');
    } catch (e) {
      throw new Error(`Tokenizer.load: cannot read ${path}: ${(e as Error).message}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new Error(`Tokenizer.load: ${path} is not valid JSON: ${(e as Error).message}`);
    }
    return Tokenizer.fromJSON(json, path);
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
