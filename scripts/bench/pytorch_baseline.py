#!/usr/bin/env python3
"""PyTorch baseline for P2: training steps/s of a gensyn task spec in plain PyTorch.

Same wheel (the project's virtualenv), same model (built from the spec's layer list), same
data file (the spec's MNIST bundle), same batch size, optimizer and thread count as the
Rust benchmark. Idiomatic PyTorch: nn.Sequential, F.cross_entropy, torch.optim.

Usage: pytorch_baseline.py SPEC [--threads N] [--steps N] [--reps N] [--cpu]
Prints one JSON object.
"""
import argparse
import gzip
import json
import struct
import time

import torch
import torch.nn.functional as F
from torch import nn


def read_bundle(path):
    """An MNIST bundle (images IDX then labels IDX, optionally gzip) as tensors."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    n, h, w = struct.unpack(">III", raw[4:16])
    images = torch.frombuffer(bytearray(raw[16:16 + n * h * w]), dtype=torch.uint8)
    rest = raw[16 + n * h * w:]
    labels = torch.frombuffer(bytearray(rest[8:8 + n]), dtype=torch.uint8)
    return images.view(n, 1, h, w).float() / 255.0, labels.long()


def build(model_spec):
    layers = []
    for layer in model_spec["layers"]:
        kind = layer["type"]
        if kind == "linear":
            layers.append(nn.Linear(layer["in_features"], layer["out_features"]))
        elif kind == "conv2d":
            layers.append(nn.Conv2d(layer["in_channels"], layer["out_channels"], layer["kernel"],
                                    stride=layer["stride"], padding=layer["padding"]))
        elif kind == "relu":
            layers.append(nn.ReLU())
        elif kind == "max_pool2d":
            layers.append(nn.MaxPool2d(layer["kernel"], stride=layer["stride"]))
        elif kind == "flatten":
            layers.append(nn.Flatten())
        else:
            raise SystemExit(f"unknown layer type {kind!r}")
    return nn.Sequential(*layers)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("spec")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--cpu", action="store_true")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    # Float32 products, as the Rust trainer uses (TF32 would fail a float32 replay).
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    spec = json.load(open(a.spec))
    uri = spec["data"]["uri"]
    path = uri[len("file://"):] if uri.startswith("file://") else uri
    device = torch.device("cuda" if torch.cuda.is_available() and not a.cpu else "cpu")
    x, y = read_bundle(path)
    x, y = x.to(device), y.to(device)
    model = build(spec["model"]).to(device)
    t = spec["training"]
    opt = t["optimizer"]
    if opt["type"] == "sgd":
        optim = torch.optim.SGD(model.parameters(), lr=opt["lr"], momentum=opt["momentum"])
    else:
        optim = torch.optim.Adam(model.parameters(), lr=opt["lr"], betas=(opt["beta1"], opt["beta2"]),
                                 eps=opt["eps"])
    batch = t["batch_size"]
    gen = torch.Generator().manual_seed(t["seed"])
    perm = torch.randperm(x.shape[0], generator=gen).to(device)

    def run(first, steps):
        loss = None
        for s in range(first, first + steps):
            start = (s * batch) % (x.shape[0] - batch)
            idx = perm[start:start + batch]
            optim.zero_grad()
            loss = F.cross_entropy(model(x.index_select(0, idx)), y.index_select(0, idx))
            loss.backward()
            optim.step()
        return loss.item()

    run(0, 5)
    secs = cpu = float("inf")
    for _ in range(a.reps):  # best of reps, as the Rust benchmark
        t0, c0 = time.perf_counter(), time.process_time()
        run(5, a.steps)
        secs = min(secs, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
    print(json.dumps({"spec": a.spec, "device": str(device), "threads": a.threads, "steps": a.steps, "reps": a.reps,
                      "torch_version": torch.__version__, "pytorch_steps_per_s": a.steps / secs,
                      "pytorch_steps_per_cpu_s": a.steps / cpu}, indent=2))


if __name__ == "__main__":
    main()
