#!/usr/bin/env python3
# REFERENCE ONLY — not part of the product. The PyTorch twin of bench/ref-model.ts (which
# mirrors core's TinyLm + train()), used by bench/native.bench.ts to time the same training
# step: decoder LM (learned positions, pre-LayerNorm via mean/variance, causal attention with an
# additive bias, GELU as x*sigmoid(2u), separate q/k/v with biases, tied LM head), masked
# next-token cross-entropy, global-norm clipping at 1.0 and AdamW (lr 1e-3, betas 0.9/0.999,
# eps 1e-8, weight decay 0.01 on non-embedding matrices).
#
# Protocol (a persistent worker so runs can alternate with the TF.js ones): reads lines from
# stdin; "run N" trains N steps and prints one JSON line {"ms": [per-step wall ms], "loss": x};
# "quit" exits. Prints {"ready": true, "threads": n, "torch": version} first.
# Threads: --threads sets torch.set_num_threads; the caller sets OPENBLAS_NUM_THREADS.
import argparse
import json
import math
import random
import sys
import time

import torch

p = argparse.ArgumentParser()
p.add_argument("--threads", type=int, default=2)
p.add_argument("--vocab", type=int, default=64)
p.add_argument("--layers", type=int, default=4)
p.add_argument("--heads", type=int, default=4)
p.add_argument("--width", type=int, default=128)
p.add_argument("--positions", type=int, default=64)
p.add_argument("--batch", type=int, default=32)
p.add_argument("--table", type=int, default=0)  # rows of the position table (0: --positions)
args = p.parse_args()
torch.set_num_threads(args.threads)
torch.manual_seed(1)
V, L, H, C, T, B = args.vocab, args.layers, args.heads, args.width, args.positions, args.batch
D = C // H


def param(shape, kind):
    if kind == "ones":
        t = torch.ones(shape)
    elif kind == "zeros":
        t = torch.zeros(shape)
    else:
        t = torch.randn(shape) * (0.02 / math.sqrt(2 * L) if kind == "residual" else 0.02)
    return t.requires_grad_()


P = {"wte": param((V, C), "normal"), "wpe": param((args.table or T, C), "normal")}
for l in range(L):
    P[f"h{l}.ln1.g"], P[f"h{l}.ln1.b"] = param((C,), "ones"), param((C,), "zeros")
    for w in "qkv":
        P[f"h{l}.w{w}"], P[f"h{l}.b{w}"] = param((C, C), "normal"), param((C,), "zeros")
    P[f"h{l}.wo"], P[f"h{l}.bo"] = param((C, C), "residual"), param((C,), "zeros")
    P[f"h{l}.ln2.g"], P[f"h{l}.ln2.b"] = param((C,), "ones"), param((C,), "zeros")
    P[f"h{l}.wfc"], P[f"h{l}.bfc"] = param((C, 4 * C), "normal"), param((4 * C,), "zeros")
    P[f"h{l}.wproj"], P[f"h{l}.bproj"] = param((4 * C, C), "residual"), param((C,), "zeros")
P["lnf.g"], P["lnf.b"] = param((C,), "ones"), param((C,), "zeros")

decay = [v for k, v in P.items() if v.dim() >= 2 and k not in ("wte", "wpe")]
no_decay = [v for k, v in P.items() if not (v.dim() >= 2 and k not in ("wte", "wpe"))]
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}], lr=1e-3, betas=(0.9, 0.999), eps=1e-8)
causal = torch.tril(torch.ones(T, T))
GELU_2K = 2 * math.sqrt(2 / math.pi)


def layer_norm(x, g, b):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) * torch.rsqrt(var + 1e-5) * g + b


def loss_of(rows):
    ids = torch.tensor(rows)
    x_ids, y_ids = ids[:, :T], ids[:, 1:]
    x = P["wte"][x_ids] + P["wpe"][torch.arange(T)].unsqueeze(0)
    key_mask = torch.ones(B, T)
    bias = (1 - causal.view(1, 1, T, T) * key_mask.view(B, 1, 1, T)) * -1e9
    split = lambda t: t.view(B, T, H, D).transpose(1, 2)
    for l in range(L):
        h = layer_norm(x, P[f"h{l}.ln1.g"], P[f"h{l}.ln1.b"])
        q, k, v = (split(h @ P[f"h{l}.w{w}"] + P[f"h{l}.b{w}"]) for w in "qkv")
        att = torch.softmax(q @ k.transpose(-1, -2) * (1 / math.sqrt(D)) + bias, -1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        x = x + y @ P[f"h{l}.wo"] + P[f"h{l}.bo"]
        m = layer_norm(x, P[f"h{l}.ln2.g"], P[f"h{l}.ln2.b"])
        u = m @ P[f"h{l}.wfc"] + P[f"h{l}.bfc"]
        x = x + (u * torch.sigmoid((u + 0.044715 * u * u * u) * GELU_2K)) @ P[f"h{l}.wproj"] + P[f"h{l}.bproj"]
    f = layer_norm(x, P["lnf.g"], P["lnf.b"]).reshape(B * T, C)
    logits = f @ P["wte"].t()
    lse = torch.logsumexp(logits, -1)
    picked = logits.gather(1, y_ids.reshape(B * T, 1)).squeeze(1)
    return (lse - picked).mean()


rng = random.Random(1001)


def batch():
    rows = []
    for _ in range(B):
        s, d = rng.randrange(V), 1 + rng.randrange(5)
        rows.append([(s + d * t) % V for t in range(T + 1)])
    return rows


def step():
    opt.zero_grad(set_to_none=True)
    loss = loss_of(batch())
    loss.backward()
    torch.nn.utils.clip_grad_norm_(list(P.values()), 1.0)
    opt.step()
    return loss.item()


print(json.dumps({"ready": True, "threads": torch.get_num_threads(), "torch": torch.__version__}), flush=True)
for line in sys.stdin:
    cmd = line.split()
    if not cmd or cmd[0] == "quit":
        break
    if cmd[0] == "run":
        ms, loss = [], 0.0
        for _ in range(int(cmd[1])):
            t0 = time.perf_counter()
            loss = step()
            ms.append((time.perf_counter() - t0) * 1000)
        print(json.dumps({"ms": ms, "loss": loss}), flush=True)
