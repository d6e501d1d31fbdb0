/**
 * A pretrained byte-level BPE tokenizer (GPT-2's) behind core's `Tokenizer` interface, so every
 * method and task uses it unchanged. Encoding and decoding run in Hugging Face's maintained
 * tokenizer library (`@huggingface/tokenizers`), from the folder's `tokenizer.json`, or from
 * `vocab.json` + `merges.txt` assembled into GPT-2's tokenizer.json (byte-level pre-tokeniser
 * and decoder, BPE model). Decoding is exact (no clean-up of spaces before punctuation).
 *
 * With `addSpecialTokens`, Telepath's special tokens (`<pad>` `<bos>` `<eos>` `<unk>` `<bot>`
 * `<eot>` `<latent>` `###`) become added special tokens with ids from the model's vocab_size on;
 * a folder saved by Telepath already holds them and keeps their ids. `newTokenInitIds` says which
 * existing token's embedding row each new one starts from: `<<` for the latent markers and `###`
 * (as Coconut's released code does for its latent tokens), `<|endoftext|>` for pad/bos/eos/unk
 * (GPT-2's one boundary token); the first of them the vocabulary has, else id 0.
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Tokenizer as HfTokenizer } from '@huggingface/tokenizers';
import { writeFileAtomic } from './atomic.js';
import { SPECIAL_TOKENS, Tokenizer, type SpecialTokenName } from './tokenizer.js';

const ENDOFTEXT = '<|endoftext|>';
const LATENT_INIT = '<<';
const BOUNDARY: SpecialTokenName[] = ['pad', 'bos', 'eos', 'unk'];

interface AddedTokenJson {
  id: number;
  content: string;
  single_word: boolean;
  lstrip: boolean;
  rstrip: boolean;
  normalized: boolean;
  special: boolean;
}
interface TokenizerFileJson {
  added_tokens: AddedTokenJson[];
  model: { type: string; vocab: Record<string, number>; merges: (string | [string, string])[]; [key: string]: unknown };
  [key: string]: unknown;
}

export interface PretrainedTokenizerOptions {
  addSpecialTokens?: boolean;
  /** The checkpoint's vocab_size: added tokens get ids from here on (default: the tokenizer's size). */
  modelVocabSize?: number;
}

export class PretrainedTokenizer extends Tokenizer {
  /** Ids [baseSize, size) are the added Telepath specials (none without `addSpecialTokens`). */
  readonly baseSize: number;
  /** For each id ≥ the model's vocab_size: the existing id whose embedding row it copies. */
  readonly newTokenInitIds: number[];
  private readonly hf: HfTokenizer;
  private readonly json: TokenizerFileJson;
  private readonly withSpecials: boolean;

  private constructor(
    tokens: string[],
    json: TokenizerFileJson,
    withSpecials: boolean,
    baseSize: number,
    initIds: number[],
  ) {
    super(tokens);
    this.json = json;
    this.withSpecials = withSpecials;
    this.baseSize = baseSize;
    this.newTokenInitIds = initIds;
    this.hf = new HfTokenizer(json, { clean_up_tokenization_spaces: false });
  }

  /** Reads tokenizer.json, or vocab.json + merges.txt, from a folder. */
  static override async load(folder: string, o: PretrainedTokenizerOptions = {}): Promise<PretrainedTokenizer> {
    const json = await readTokenizerFiles(folder);
    const vocab = new Map<string, number>(Object.entries(json.model.vocab));
    for (const t of json.added_tokens) vocab.set(t.content, t.id);
    const tokens: string[] = [];
    for (const [t, id] of vocab) tokens[id] = t;
    const modelVocab = Math.max(o.modelVocabSize ?? 0, tokens.length);
    const initIds: number[] = [];
    const init = (name: SpecialTokenName) =>
      vocab.get(BOUNDARY.includes(name) ? ENDOFTEXT : LATENT_INIT) ?? vocab.get(ENDOFTEXT) ?? 0;
    const specials = Object.entries(SPECIAL_TOKENS) as [SpecialTokenName, string][];
    if (o.addSpecialTokens) {
      for (const [name, content] of specials) {
        if (vocab.has(content)) continue;
        const id = Math.max(modelVocab, tokens.length);
        json.added_tokens.push({
          id,
          content,
          single_word: false,
          lstrip: false,
          rstrip: false,
          normalized: false,
          special: true,
        });
        vocab.set(content, id);
        tokens[id] = content;
        initIds[id - modelVocab] = init(name);
      }
    }
    // Ids the model has but the tokenizer never produces (a vocab_size padded past the tokenizer's).
    for (let id = 0; id < tokens.length; id++) tokens[id] ??= `<|unused:${id}|>`;
    const withSpecials = o.addSpecialTokens === true || specials.every(([, c]) => vocab.has(c));
    // core's Tokenizer needs every special in its table; without them they sit past `size`, unused.
    const table = withSpecials ? tokens : [...tokens, ...specials.map(([, c]) => c).filter((c) => !vocab.has(c))];
    return new PretrainedTokenizer(
      table,
      json,
      withSpecials,
      withSpecials ? Math.min(modelVocab, tokens.length) : tokens.length,
      initIds,
    );
  }

  override get size(): number {
    return this.withSpecials ? this.tokens.length : this.baseSize;
  }

  override id(tokenOrSpecial: SpecialTokenName | string): number {
    const id = super.id(tokenOrSpecial);
    if (id >= this.size)
      throw new Error(
        `PretrainedTokenizer: ${JSON.stringify(tokenOrSpecial)} is not in this checkpoint's vocabulary (load it with addSpecialTokens to add Telepath's special tokens)`,
      );
    return id;
  }

  /** GPT-2's byte-level tokens of a text (added special tokens kept whole). */
  override pieces(text: string): string[] {
    return this.hf.tokenize(text, { add_special_tokens: false });
  }

  override encode(text: string, o: { bos?: boolean; eos?: boolean } = {}): number[] {
    const ids = this.hf.encode(text, { add_special_tokens: false }).ids;
    if (o.bos) ids.unshift(this.bosId);
    if (o.eos) ids.push(this.eosId);
    return ids;
  }

  override decode(ids: readonly number[], o: { skipSpecial?: boolean } = {}): string {
    const drop = o.skipSpecial ? new Set([this.padId, this.bosId, this.eosId]) : undefined;
    const kept: number[] = [];
    for (const id of ids) {
      if (!Number.isInteger(id) || id < 0 || id >= this.size)
        throw new Error(`PretrainedTokenizer.decode: id ${id} outside [0, ${this.size})`);
      if (!drop?.has(id)) kept.push(id);
    }
    return kept.length === 0
      ? ''
      : this.hf.decode(kept, { skip_special_tokens: false, clean_up_tokenization_spaces: false });
  }

  /** Byte-level BPE encodes every text: nothing is unknown. */
  override countUnknown(texts: Iterable<string>): { pieces: number; unknown: number } {
    let pieces = 0;
    for (const t of texts) pieces += this.pieces(t).length;
    return { pieces, unknown: 0 };
  }

  override toJSON(): never {
    throw new Error(
      'PretrainedTokenizer: saved as Hugging Face files with save(folder), not as a Telepath tokenizer JSON',
    );
  }

  /** Writes tokenizer.json (added tokens included), vocab.json, merges.txt and added_tokens.json into a folder. */
  override async save(folder: string): Promise<void> {
    await fs.mkdir(folder, { recursive: true });
    const merges = this.json.model.merges.map((m) => (typeof m === 'string' ? m : m.join(' ')));
    const added = Object.fromEntries(
      this.json.added_tokens.filter((t) => !(t.content in this.json.model.vocab)).map((t) => [t.content, t.id]),
    );
    await writeFileAtomic(path.join(folder, 'tokenizer.json'), JSON.stringify(this.json) + '\n');
    await writeFileAtomic(path.join(folder, 'vocab.json'), JSON.stringify(this.json.model.vocab) + '\n');
    await writeFileAtomic(path.join(folder, 'merges.txt'), ['#version: 0.2', ...merges].join('\n') + '\n');
    await writeFileAtomic(path.join(folder, 'added_tokens.json'), JSON.stringify(added) + '\n');
  }
}

async function readTokenizerFiles(folder: string): Promise<TokenizerFileJson> {
  const readJson = async (file: string): Promise<unknown> => {
    try {
      return JSON.parse(await fs.readFile(file, 'utf8'));
    } catch (e) {
      throw new Error(`${file}: cannot read it as JSON: ${(e as Error).message}`);
    }
  };
  const tokenizerFile = path.join(folder, 'tokenizer.json');
  if (existsSync(tokenizerFile)) {
    const json = (await readJson(tokenizerFile)) as TokenizerFileJson;
    if (json?.model?.type !== 'BPE' || typeof json.model.vocab !== 'object' || !Array.isArray(json.model.merges))
      throw new Error(
        `${tokenizerFile}: expected a byte-level BPE tokenizer ("model": {"type": "BPE", "vocab", "merges"})`,
      );
    json.added_tokens ??= [];
    return json;
  }
  const vocabFile = path.join(folder, 'vocab.json');
  const mergesFile = path.join(folder, 'merges.txt');
  if (!existsSync(vocabFile) || !existsSync(mergesFile))
    throw new Error(
      `${folder}: no tokenizer.json, and no vocab.json + merges.txt (${existsSync(vocabFile) ? 'merges.txt' : 'vocab.json'} is missing)`,
    );
  const vocab = (await readJson(vocabFile)) as Record<string, number>;
  if (vocab === null || typeof vocab !== 'object' || Object.values(vocab).some((v) => !Number.isInteger(v)))
    throw new Error(`${vocabFile}: expected an object of token → integer id`);
  const lines = (await fs.readFile(mergesFile, 'utf8')).split('\n');
  const merges: string[] = [];
  lines.forEach((line, i) => {
    if (line === '' || (i === 0 && line.startsWith('#version'))) return;
    if (line.split(' ').length !== 2)
      throw new Error(
        `${mergesFile}:${i + 1}: expected two tokens separated by one space, got ${JSON.stringify(line)}`,
      );
    merges.push(line);
  });
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
  const added =
    ENDOFTEXT in vocab
      ? [
          {
            id: vocab[ENDOFTEXT],
            content: ENDOFTEXT,
            single_word: false,
            lstrip: false,
            rstrip: false,
            normalized: true,
            special: true,
          },
        ]
      : [];
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: null,
    pre_tokenizer: byteLevel,
    post_processor: byteLevel,
    decoder: byteLevel,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      vocab,
      merges,
    },
  };
}
