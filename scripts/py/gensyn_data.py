#!/usr/bin/env python3
"""Task data and commitments of gensyn-node, in plain Python (standard library only).

The rules are those of docs/data-format.md:

  data-ref        the `data` part of a task spec for an IDX bundle: its blake2-256
                  file hash, its chunk root, sample count, shape and classes
  bundle          an IDX bundle (images then labels) from MNIST-style IDX files,
                  plain or gzip
  tokens          a language model's token sequences from a text, and their `data`
  checkpoint-root the Merkle root a solver commits over a run journal's checkpoints

Each command prints JSON on stdout; errors go to stderr with a non-zero exit.
"""

import argparse
import gzip
import hashlib
import json
import os
import struct
import sys

DATA_CHUNK_SIZE = 1024
LEAF_TAG, NODE_TAG, EMPTY_TAG = b"\x00", b"\x01", b"\x02"
UBYTE = 0x08


class DataError(Exception):
    """Input that is not what the format says."""


def blake2_256(data: bytes) -> bytes:
    """BLAKE2b with a 32-byte digest and no key: the chain's blake2-256."""
    return hashlib.blake2b(data, digest_size=32).digest()


def merkle_root(leaves) -> bytes:
    """Root over leaf hashes: nodes hash NODE_TAG ++ left ++ right, levels pair left to
    right, a lone last node goes up unchanged; no leaf at all is blake2-256(EMPTY_TAG)."""
    level = list(leaves)
    if not level:
        return blake2_256(EMPTY_TAG)
    while len(level) > 1:
        paired = [blake2_256(NODE_TAG + level[i] + level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
    return level[0]


def chunk_root(data: bytes) -> bytes:
    """A data file's chunk root: leaves are blake2-256(LEAF_TAG ++ chunk) over 1 KiB
    chunks (the last may be shorter)."""
    chunks = (data[i:i + DATA_CHUNK_SIZE] for i in range(0, len(data), DATA_CHUNK_SIZE))
    return merkle_root(blake2_256(LEAF_TAG + c) for c in chunks)


def checkpoint_root(state_hashes) -> bytes:
    """A run's checkpoint root: its leaves are the 32-byte checkpoint state hashes as they
    are (each is already the root of a tagged tree), not hashed again."""
    return merkle_root(state_hashes)


def parse_idx(data: bytes, offset: int, what: str):
    """The unsigned-byte IDX array at `offset`: (dims, start of elements, end)."""
    if len(data) < offset + 4:
        raise DataError(f"{what}: truncated IDX head")
    zero, kind, ndims = struct.unpack_from(">HBB", data, offset)
    if zero != 0 or kind != UBYTE:
        raise DataError(f"{what}: not an unsigned-byte IDX array (magic {data[offset:offset + 4].hex()})")
    head = offset + 4 + 4 * ndims
    if len(data) < head:
        raise DataError(f"{what}: truncated IDX dimensions")
    dims = list(struct.unpack_from(f">{ndims}I", data, offset + 4))
    count = 1
    for d in dims:
        count *= d
    if len(data) < head + count:
        raise DataError(f"{what}: {count} elements announced, {len(data) - head} present")
    return dims, head, head + count


def read_bundle(data: bytes, what: str):
    """(samples, height, width, labels) of an IDX bundle: images [N, H, W] then labels [N],
    nothing after."""
    if data[:2] == b"\x1f\x8b":
        raise DataError(f"{what}: gzip; the chain takes uncompressed bundles (use `bundle`)")
    dims, _, end = parse_idx(data, 0, what + " images")
    if len(dims) != 3:
        raise DataError(f"{what}: images have dimensions {dims}, expected [N, H, W]")
    ldims, lstart, lend = parse_idx(data, end, what + " labels")
    if len(ldims) != 1 or ldims[0] != dims[0]:
        raise DataError(f"{what}: labels have dimensions {ldims}, expected [{dims[0]}]")
    if lend != len(data):
        raise DataError(f"{what}: {len(data) - lend} bytes after the labels")
    return dims[0], dims[1], dims[2], data[lstart:lend]


def data_ref(path: str, uri: str) -> dict:
    """The spec's `data` object for the IDX bundle at `path`, to be served at `uri`."""
    with open(path, "rb") as f:
        data = f.read()
    samples, height, width, labels = read_bundle(data, path)
    classes = (max(labels) + 1) if labels else 0
    return data_object(data, uri, "mnist_idx", samples, (height, width), classes)


def data_object(data: bytes, uri: str, fmt: str, samples: int, hw, classes: int) -> dict:
    """A spec's `data` object for the file `data` of one-channel samples `hw` high and
    wide: its commitments, format and counts."""
    return {
        "uri": uri,
        "file_hash": "0x" + blake2_256(data).hex(),
        "chunk_root": "0x" + chunk_root(data).hex(),
        "format": fmt,
        "samples": samples,
        "input": {"channels": 1, "height": hw[0], "width": hw[1]},
        "classes": classes,
    }


def read_maybe_gzip(path: str) -> bytes:
    with open(path, "rb") as f:
        raw = f.read()
    return gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw


def bundle(images: str, labels: str, out: str) -> dict:
    """Writes the images file then the labels file (each plain or gzip) as one bundle."""
    img, lbl = read_maybe_gzip(images), read_maybe_gzip(labels)
    dims, _, end = parse_idx(img, 0, images)
    if len(dims) != 3 or end != len(img):
        raise DataError(f"{images}: expected one [N, H, W] array, found {dims}")
    ldims, _, lend = parse_idx(lbl, 0, labels)
    if ldims != dims[:1] or lend != len(lbl):
        raise DataError(f"{labels}: expected one [{dims[0]}] array, found {ldims}")
    data = img + lbl
    with open(out, "wb") as f:
        f.write(data)
    return {"written": out, "bytes": len(data), "samples": dims[0]}


def tokens(text: str, characters: str, context: int, out: str, uri: str, most=None) -> dict:
    """Cuts the UTF-8 text at `text` into sequences of `context + 1` character ids (each
    character's index in `characters`, one byte each), one after another and none
    overlapping, drops the remainder (and every sequence past the first `most`, when
    given), writes them to `out` and returns the spec's `data` object for it (`format:
    "tokens"`, input `[1, 1, context]`, a class per character)."""
    if not 0 < context <= 1024:
        raise DataError(f"a context of {context} positions: 1 to 1024 are allowed")
    if most is not None and most < 1:
        raise DataError(f"at most {most} sequences: at least one is needed")
    if not 2 <= len(characters) <= 256 or len(set(characters)) != len(characters):
        raise DataError("the characters must be 2 to 256 distinct ones (ids are bytes)")
    ids = {c: i for i, c in enumerate(characters)}
    # newline="": a "\r" is a character like any other, not folded into "\n".
    with open(text, encoding="utf-8", newline="") as f:
        body = f.read()
    unknown = sorted(set(body) - set(ids))
    if unknown:
        raise DataError(f"{text}: characters not listed: {''.join(unknown)!r}")
    width = context + 1
    samples = len(body) // width
    if most is not None:
        samples = min(samples, most)
    if samples == 0:
        raise DataError(f"{text}: shorter than one sequence of {width} characters")
    data = bytes(ids[c] for c in body[: samples * width])
    with open(out, "wb") as f:
        f.write(data)
    return data_object(data, uri, "tokens", samples, (1, context), len(characters))


def journal_root(path: str) -> dict:
    """The checkpoint root over a run journal's checkpoints (`state_hash`, hex)."""
    with open(path, encoding="utf-8") as f:
        journal = json.load(f)
    hashes = [bytes.fromhex(c["state_hash"].removeprefix("0x")) for c in journal["checkpoints"]]
    if any(len(h) != 32 for h in hashes):
        raise DataError(f"{path}: a state_hash is not 32 bytes")
    return {"checkpoints": len(hashes), "checkpoint_root": "0x" + checkpoint_root(hashes).hex()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("data-ref", help="the spec's data object for an IDX bundle")
    p.add_argument("--file", required=True)
    p.add_argument("--uri", help="where workers will fetch it (default: file:// and its absolute path)")
    p = sub.add_parser("bundle", help="an IDX bundle from an images and a labels file")
    p.add_argument("--images", required=True)
    p.add_argument("--labels", required=True)
    p.add_argument("--out", required=True)
    p = sub.add_parser("tokens", help="a token-sequence file from a text, and its data object")
    p.add_argument("--text", required=True)
    p.add_argument("--characters", help="the vocabulary, in id order")
    p.add_argument("--manifest", help="a manifest.json whose `characters` are the vocabulary")
    p.add_argument("--context", type=int, required=True, help="positions per sequence")
    p.add_argument("--sequences", type=int, help="keep only the first this many sequences")
    p.add_argument("--out", required=True)
    p.add_argument("--uri", help="where workers will fetch it (default: file:// and its absolute path)")
    p = sub.add_parser("checkpoint-root", help="the checkpoint root of a run journal (JSON)")
    p.add_argument("--journal", required=True)
    args = parser.parse_args(argv)
    try:
        if args.command == "data-ref":
            result = data_ref(args.file, args.uri or "file://" + os.path.abspath(args.file))
        elif args.command == "bundle":
            result = bundle(args.images, args.labels, args.out)
        elif args.command == "tokens":
            characters = args.characters
            if args.manifest:
                with open(args.manifest, encoding="utf-8") as f:
                    characters = json.load(f)["characters"]
            if characters is None:
                raise DataError("give the vocabulary: --characters or --manifest")
            uri = args.uri or "file://" + os.path.abspath(args.out)
            result = tokens(args.text, characters, args.context, args.out, uri, args.sequences)
        else:
            result = journal_root(args.journal)
    except (OSError, DataError, ValueError, KeyError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
