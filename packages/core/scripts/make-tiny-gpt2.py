#!/usr/bin/python3
"""
Builds the tiny random GPT-2 fixture of packages/core/src/__fixtures__/ (run from the repository root):

    apt-get install -y python3-torch        # Debian 12: torch 1.13.1
    /usr/bin/python3 packages/core/scripts/make-tiny-gpt2.py   # Debian's python3, where python3-torch lives

It needs only PyTorch (and the numpy it depends on): no `transformers`, `tokenizers` or
`safetensors` package. Everything Hugging Face would produce is written by hand here:

- a byte-level BPE vocabulary (GPT-2's byte-to-unicode table and pre-tokenisation, merges learned
  from a few task-like lines), saved as `tokenizer.json` and as `vocab.json` + `merges.txt`;
- a random GPT-2 (2 layers, 4 heads, width 32, 64 positions) whose weights carry Hugging Face's
  GPT2LMHeadModel names, saved as safetensors (8-byte little-endian header length, JSON header,
  raw little-endian data) in three folders:
    tiny-gpt2/       F32, names with `transformer.`, lm_head absent (tied), tokenizer.json + vocab/merges
    tiny-gpt2-f16/   F16, names without the prefix plus the `attn.bias` mask buffers, vocab/merges only
    tiny-gpt2-bf16/  BF16, names without the prefix, vocab/merges only
- `--check FOLDER` instead reads a folder Telepath saved (saveGpt2) with this script's own
  safetensors reader and runs the same PyTorch forward on it: its logits must equal the reference
  ones (the columns of tokens Telepath added aside). Nothing is written.
- `tiny-gpt2/reference.json`: the tokenisation of a few texts, the logits of a plain PyTorch forward
  (float64 arithmetic on the float32 weights) at every position of a prompt, and its greedy
  continuation.
"""
import json
import math
import os
import re
import struct
import sys

import torch

CHECK = sys.argv[2] if len(sys.argv) > 2 and sys.argv[1] == '--check' else None
OUT = sys.argv[1] if len(sys.argv) > 1 and not CHECK else 'packages/core/src/__fixtures__'
torch.manual_seed(0)

# ---------------------------------------------------------------- byte-level BPE


def bytes_to_unicode():
    """GPT-2's reversible map from bytes to printable characters: printable Latin-1 bytes map to
    themselves, the others to 256, 257, … in byte order."""
    keep = list(range(ord('!'), ord('~') + 1)) + list(range(ord('¡'), ord('¬') + 1)) + list(range(ord('®'), ord('ÿ') + 1))
    chars = keep[:]
    n = 0
    for b in range(256):
        if b not in keep:
            keep.append(b)
            chars.append(256 + n)
            n += 1
    return dict(zip(keep, [chr(c) for c in chars]))


BYTE_CHAR = bytes_to_unicode()
# GPT-2's pre-tokenisation pattern, with \p{L} / \p{N} written for ASCII (every text here is ASCII).
PIECE = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""")

CORPUS = [
    'Janet has 3 apples and buys 12 more. How many apples does she have?',
    '<<3+12=15>> She has 15 apples.',
    'Every wumpus is a yumpus. Alex is a wumpus. Is Alex a yumpus or a zumpus?',
    'Use 4, 7, 9 and 25 to reach 24: 25 - 9 = 16, 16 + 7 = 23, 23 + 4 = 27.',
    'The answer is the number of apples left after she gives 5 away.',
    'Tom reads 20 pages a day for 7 days. How many pages is that?',
]
TEXTS = [
    'Janet has 3 apples.',
    'How many pages does Tom read in 7 days?',
    '<<20*7=140>> 140 pages\n',
    'Every wumpus is a zumpus.  Is it?',
]
NUM_MERGES = 96


def pieces(text):
    return [''.join(BYTE_CHAR[b] for b in p.encode('utf-8')) for p in PIECE.findall(text)]


def learn_merges(texts, n):
    words = {}
    for t in texts:
        for p in pieces(t):
            words[tuple(p)] = words.get(tuple(p), 0) + 1
    merges = []
    for _ in range(n):
        pairs = {}
        for w, c in words.items():
            for a, b in zip(w, w[1:]):
                pairs[(a, b)] = pairs.get((a, b), 0) + c
        if not pairs:
            break
        best = max(pairs.items(), key=lambda kv: (kv[1], [-ord(ch) for ch in kv[0][0] + kv[0][1]]))[0]
        merges.append(best)
        words = {tuple(merge_word(list(w), best)): c for w, c in words.items()}
    return merges


def merge_word(word, pair):
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return out


def bpe(piece, ranks):
    word = list(piece)
    while len(word) > 1:
        ranked = [(ranks.get(p, math.inf), p) for p in zip(word, word[1:])]
        rank, pair = min(ranked)
        if rank == math.inf:
            break
        word = merge_word(word, pair)
    return word


merges = learn_merges(CORPUS, NUM_MERGES)
ranks = {p: i for i, p in enumerate(merges)}
vocab = {}
for b in BYTE_CHAR:  # bytes in the table's order, as GPT-2's vocab.json
    vocab[BYTE_CHAR[b]] = len(vocab)
for a, b in merges:
    vocab.setdefault(a + b, len(vocab))
EOT = '<|endoftext|>'
vocab[EOT] = len(vocab)
V = len(vocab)


def encode(text):
    return [vocab[t] for p in pieces(text) for t in bpe(p, ranks)]


# ---------------------------------------------------------------- the model

C, L, H, P = 32, 2, 4, 64
config = {
    'activation_function': 'gelu_new', 'architectures': ['GPT2LMHeadModel'], 'attn_pdrop': 0.1,
    'bos_token_id': vocab[EOT], 'embd_pdrop': 0.1, 'eos_token_id': vocab[EOT], 'initializer_range': 0.02,
    'layer_norm_epsilon': 1e-05, 'model_type': 'gpt2', 'n_ctx': P, 'n_embd': C, 'n_head': H, 'n_inner': None,
    'n_layer': L, 'n_positions': P, 'resid_pdrop': 0.1, 'scale_attn_weights': True, 'tie_word_embeddings': True,
    'torch_dtype': 'float32', 'vocab_size': V,
}


def rand(*shape, std):
    return (torch.randn(*shape) * std).float()


# Larger than GPT-2's 0.02 so the logits spread and the greedy continuation is not a near tie.
weights = {'wte.weight': rand(V, C, std=0.5), 'wpe.weight': rand(P, C, std=0.2)}
for l in range(L):
    h = f'h.{l}.'
    weights.update({
        h + 'ln_1.weight': 1 + rand(C, std=0.1), h + 'ln_1.bias': rand(C, std=0.1),
        h + 'attn.c_attn.weight': rand(C, 3 * C, std=0.3), h + 'attn.c_attn.bias': rand(3 * C, std=0.1),
        h + 'attn.c_proj.weight': rand(C, C, std=0.2), h + 'attn.c_proj.bias': rand(C, std=0.1),
        h + 'ln_2.weight': 1 + rand(C, std=0.1), h + 'ln_2.bias': rand(C, std=0.1),
        h + 'mlp.c_fc.weight': rand(C, 4 * C, std=0.2), h + 'mlp.c_fc.bias': rand(4 * C, std=0.1),
        h + 'mlp.c_proj.weight': rand(4 * C, C, std=0.1), h + 'mlp.c_proj.bias': rand(C, std=0.1),
    })
weights.update({'ln_f.weight': 1 + rand(C, std=0.1), 'ln_f.bias': rand(C, std=0.1)})


def layer_norm(x, g, b):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + config['layer_norm_epsilon']) * g + b


def gelu_new(x):
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def forward(ids):
    """[T] ids → [T, V] logits; a plain GPT-2 forward in float64."""
    w = {k: v.double() for k, v in weights.items()}
    T, D = len(ids), C // H
    x = w['wte.weight'][torch.tensor(ids)] + w['wpe.weight'][:T]  # [T, C]
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    for l in range(L):
        h = f'h.{l}.'
        a = layer_norm(x, w[h + 'ln_1.weight'], w[h + 'ln_1.bias']) @ w[h + 'attn.c_attn.weight'] + w[h + 'attn.c_attn.bias']
        q, k, v = (t.reshape(T, H, D).transpose(0, 1) for t in a.split(C, dim=-1))  # [H, T, D]
        scores = (q @ k.transpose(1, 2)) / math.sqrt(D)  # [H, T, T]
        probs = torch.softmax(scores.masked_fill(~causal, -math.inf), dim=-1)
        y = (probs @ v).transpose(0, 1).reshape(T, C)
        x = x + y @ w[h + 'attn.c_proj.weight'] + w[h + 'attn.c_proj.bias']
        m = gelu_new(layer_norm(x, w[h + 'ln_2.weight'], w[h + 'ln_2.bias']) @ w[h + 'mlp.c_fc.weight'] + w[h + 'mlp.c_fc.bias'])
        x = x + m @ w[h + 'mlp.c_proj.weight'] + w[h + 'mlp.c_proj.bias']
    x = layer_norm(x, w['ln_f.weight'], w['ln_f.bias'])
    return x @ w['wte.weight'].T  # tied head


# ---------------------------------------------------------------- files

DTYPES = {torch.float32: 'F32', torch.float16: 'F16', torch.bfloat16: 'BF16'}


def save_safetensors(path, tensors):
    header, blobs, offset = {'__metadata__': {'format': 'pt'}}, [], 0
    for name in sorted(tensors):
        t = tensors[name].contiguous()
        raw = (t.view(torch.int16) if t.dtype == torch.bfloat16 else t).numpy().tobytes()
        header[name] = {'dtype': DTYPES[t.dtype], 'shape': list(t.shape), 'data_offsets': [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(',', ':')).encode('utf-8')
    text += b' ' * ((8 - len(text) % 8) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(text)) + text + b''.join(blobs))


def write_json(path, value):
    with open(path, 'w', encoding='utf-8') as f:
        json.dump(value, f, indent=2, ensure_ascii=False)
        f.write('\n')


def write_tokenizer_files(folder, with_tokenizer_json):
    write_json(os.path.join(folder, 'vocab.json'), vocab)
    with open(os.path.join(folder, 'merges.txt'), 'w', encoding='utf-8') as f:
        f.write('#version: 0.2\n' + ''.join(f'{a} {b}\n' for a, b in merges))
    if with_tokenizer_json:
        byte_level = {'type': 'ByteLevel', 'add_prefix_space': False, 'trim_offsets': True, 'use_regex': True}
        write_json(os.path.join(folder, 'tokenizer.json'), {
            'version': '1.0', 'truncation': None, 'padding': None,
            'added_tokens': [{'id': vocab[EOT], 'content': EOT, 'single_word': False, 'lstrip': False, 'rstrip': False, 'normalized': True, 'special': True}],
            'normalizer': None, 'pre_tokenizer': byte_level, 'post_processor': byte_level, 'decoder': byte_level,
            'model': {'type': 'BPE', 'dropout': None, 'unk_token': None, 'continuing_subword_prefix': '', 'end_of_word_suffix': '',
                      'fuse_unk': False, 'byte_fallback': False, 'vocab': vocab, 'merges': [f'{a} {b}' for a, b in merges]},
        })


def folder(name):
    path = os.path.join(OUT, name)
    os.makedirs(path, exist_ok=True)
    return path


def load_safetensors(path):
    with open(path, 'rb') as f:
        raw = f.read()
    (n,) = struct.unpack('<Q', raw[:8])
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, e in header.items():
        if name == '__metadata__':
            continue
        assert e['dtype'] == 'F32', f'{name}: {e["dtype"]}'
        b, end = e['data_offsets']
        out[name] = torch.frombuffer(bytearray(raw[8 + n + b:8 + n + end]), dtype=torch.float32).reshape(e['shape'])
    return out


if CHECK:
    saved = {k.removeprefix('transformer.'): v for k, v in load_safetensors(os.path.join(CHECK, 'model.safetensors')).items()}
    with open(os.path.join(CHECK, 'config.json'), encoding='utf-8') as f:
        saved_config = json.load(f)
    assert sorted(saved) == sorted(weights), f'names differ: {sorted(set(saved) ^ set(weights))}'
    for k, v in weights.items():
        t = saved[k]
        assert torch.equal(t[:V] if k == 'wte.weight' else t, v), k
    weights = saved
    with open(os.path.join(OUT, 'tiny-gpt2', 'reference.json'), encoding='utf-8') as f:
        ref = json.load(f)
    got = forward(ref['prompt'])[:, :V]
    worst = float((got - torch.tensor(ref['logits'], dtype=torch.float64)).abs().max())
    print(f'{CHECK}: vocab_size {saved_config["vocab_size"]}, {len(saved)} tensors with Hugging Face names, original weights bit-exact, logits max |diff| {worst:.2e}')
    assert worst < 1e-5
    sys.exit(0)

main = folder('tiny-gpt2')
write_json(os.path.join(main, 'config.json'), config)
save_safetensors(os.path.join(main, 'model.safetensors'), {'transformer.' + k: v for k, v in weights.items()})
write_tokenizer_files(main, True)

mask = torch.tril(torch.ones(P, P)).reshape(1, 1, P, P)
for name, dtype, buffers in (('tiny-gpt2-f16', torch.float16, True), ('tiny-gpt2-bf16', torch.bfloat16, False)):
    path = folder(name)
    write_json(os.path.join(path, 'config.json'), {**config, 'torch_dtype': str(dtype).replace('torch.', '')})
    tensors = {k: v.to(dtype) for k, v in weights.items()}
    if buffers:
        tensors.update({f'h.{l}.attn.bias': mask.to(dtype) for l in range(L)})
    save_safetensors(os.path.join(path, 'model.safetensors'), tensors)
    write_tokenizer_files(path, False)

prompt = encode('Janet has 3 apples and')
logits = forward(prompt)
generated, ids, margins = [], list(prompt), []
for _ in range(12):
    last = forward(ids)[-1]
    top = torch.topk(last, 2).values
    margins.append(float(top[0] - top[1]))
    nxt = int(torch.argmax(last))
    generated.append(nxt)
    ids.append(nxt)
write_json(os.path.join(main, 'reference.json'), {
    'createdWith': 'python3 packages/core/scripts/make-tiny-gpt2.py (torch ' + torch.__version__ + ')',
    'texts': [{'text': t, 'ids': encode(t)} for t in TEXTS],
    'prompt': prompt,
    'logits': [[round(float(v), 7) for v in row] for row in logits],
    'generated': generated,
    'smallestTop2Margin': min(margins),
})
print(f'vocab {V}, merges {len(merges)}, prompt {prompt}, generated {generated}, smallest top-2 margin {min(margins):.4f}')
