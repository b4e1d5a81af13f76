#!/usr/bin/env python3
"""PyTorch baseline for P2 of the language model: training steps/s in plain PyTorch.

The model is the decoder-only transformer that `lm_bench` times with tch, read from the
`model` of its JSON output (vocabulary, context, width, heads, blocks, MLP width,
batch): token and learned position embeddings, pre-LayerNorm blocks (causal
self-attention with separate Q, K, V and output projections, a tanh-GELU MLP, residual
adds), a final LayerNorm and a linear head; mean token cross-entropy; gradients clipped
to norm 1 and AdamW. Idiomatic PyTorch: nn.Module, F.scaled_dot_product_attention,
torch.nn.utils.clip_grad_norm_, torch.optim.AdamW. Batches are random tokens, as in
`lm_bench`; the speed of a step does not depend on the values.

Usage: pytorch_lm_baseline.py LM_JSON [--threads N] [--steps N] [--reps N]
Prints one JSON object.
"""
import argparse
import json
import time

import torch
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    """One pre-LayerNorm decoder block."""

    def __init__(self, d, heads, hidden):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.up, self.down = nn.Linear(d, hidden), nn.Linear(hidden, d)

    def forward(self, x):
        b, t, d = x.shape
        a = self.ln1(x)
        split = lambda y: y.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        o = F.scaled_dot_product_attention(split(self.q(a)), split(self.k(a)), split(self.v(a)),
                                           is_causal=True)
        x = x + self.o(o.transpose(1, 2).reshape(b, t, d))
        return x + self.down(F.gelu(self.up(self.ln2(x)), approximate="tanh"))


class Lm(nn.Module):
    """The decoder-only language model."""

    def __init__(self, m):
        super().__init__()
        self.tok = nn.Embedding(m["vocab"], m["d"])
        self.pos = nn.Parameter(torch.zeros(m["t"], m["d"]))
        self.blocks = nn.Sequential(*(Block(m["d"], m["heads"], m["hidden"])
                                      for _ in range(m["layers"])))
        self.ln = nn.LayerNorm(m["d"])
        self.head = nn.Linear(m["d"], m["vocab"])

    def forward(self, ids):
        return self.head(self.ln(self.blocks(self.tok(ids) + self.pos)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("lm_json", help="lm_bench's output, for its model")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--reps", type=int, default=3)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.backends.cuda.matmul.allow_tf32 = False
    m = json.load(open(a.lm_json))["model"]
    torch.manual_seed(5)
    model = Lm(m)
    optim = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.99), eps=1e-8,
                              weight_decay=0.01)
    text = torch.randint(m["vocab"], (a.steps, m["batch"], m["t"] + 1))

    def run():
        for s in range(a.steps):
            x, y = text[s, :, :-1], text[s, :, 1:]
            optim.zero_grad()
            loss = F.cross_entropy(model(x).reshape(-1, m["vocab"]), y.reshape(-1))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optim.step()

    run()
    secs = cpu = float("inf")
    for _ in range(a.reps):  # best of reps, as lm_bench
        t0, c0 = time.perf_counter(), time.process_time()
        run()
        secs = min(secs, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
    parameters = sum(x.numel() for x in model.parameters())
    print(json.dumps({"threads": a.threads, "steps": a.steps, "reps": a.reps, "parameters": parameters,
                      "torch_version": torch.__version__, "pytorch_steps_per_s": a.steps / secs,
                      "pytorch_steps_per_cpu_s": a.steps / cpu}, indent=2))


if __name__ == "__main__":
    main()
