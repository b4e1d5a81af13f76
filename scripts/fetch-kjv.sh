#!/usr/bin/env bash
# Builds a character-level text corpus under .data/kjv/ (gitignored) for the language
# model: the King James Bible from Debian's packages.
#
# Source: Debian's `bible-kjv-text` (the compressed text, version 4.38) and `bible-kjv`
# (its reader, whose binary prints it), fetched with `apt-get download` and checked
# against pinned SHA-256 sums. The reader prints every verse, one per line; the verse
# texts become the corpus, each verse a line. Every tenth verse (the 10th, 20th, ...)
# goes to the held-out `test.txt`, the rest to `train.txt`, in the Bible's order.
# manifest.json records each file's blake2-256 hash, byte count and verse count, and the
# corpus's characters; the files' hashes are pinned too. Idempotent: when the manifest
# exists and every file matches it, nothing runs. The reader is an amd64 binary for
# Debian 12: elsewhere the script says so and writes nothing (the tests that read the
# corpus then skip).
set -euo pipefail

VERSION="4.38"
TEXT_SHA256="d61b6aad4c51ba9e2800b825325fa6a09e99a0d02a9bb6dc4724fcc4995a1b7a"
READER_SHA256="75a49c032a6efa9faa2beb4a9acb70974380122906329d0e100de36cc88ff02d"
# What the split writes from those packages.
TRAIN_BLAKE2="f477ee176d7ffe392761e3699909d59f32d1f00b52cb987967206c3603fbb192"
TEST_BLAKE2="bf9ddda76f48339dae1b548a67435795da6e9f28e520feaee4954dca42a10a23"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${KJV_DIR:-$ROOT/.data/kjv}"
PY="${PYTHON:-python3}"

check_manifest() {
	"$PY" "$ROOT/scripts/py/manifest_ok.py" "$OUT"
}

if check_manifest; then
	echo "fetch-kjv: $OUT is up to date" >&2
	exit 0
fi

for tool in apt-get dpkg-deb dpkg sha256sum "$PY"; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "fetch-kjv: error: $tool is needed (a Debian system with python3)" >&2
		exit 1
	fi
done
if [[ "$(dpkg --print-architecture)" != amd64 ]]; then
	echo "fetch-kjv: skipped: the Bible's reader is an amd64 binary, this is $(dpkg --print-architecture)" >&2
	exit 0
fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
echo "fetch-kjv: fetching Debian packages bible-kjv-text and bible-kjv $VERSION" >&2
fetch() {
	(cd "$WORK" && apt-get download "$1=$VERSION" >/dev/null 2>&1) || {
		# A machine whose package lists were never read cannot name the package yet.
		SUDO=""
		[[ $(id -u) -eq 0 ]] || SUDO="sudo"
		$SUDO apt-get update -qq
		(cd "$WORK" && apt-get download "$1=$VERSION" >/dev/null)
	}
}
fetch bible-kjv-text
fetch bible-kjv
check_sum() {
	local got
	got="$(sha256sum "$1" | cut -d' ' -f1)"
	if [[ "$got" != "$2" ]]; then
		echo "fetch-kjv: error: $(basename "$1") has SHA-256 $got, not $2" >&2
		exit 1
	fi
}
check_sum "$WORK/bible-kjv-text_${VERSION}_all.deb" "$TEXT_SHA256"
check_sum "$WORK/bible-kjv_${VERSION}_amd64.deb" "$READER_SHA256"
for deb in "$WORK"/*.deb; do
	dpkg-deb -x "$deb" "$WORK/root"
done
# One verse a line: a line as wide as the longest verse.
COLUMNS=10000 "$WORK/root/usr/bin/bible" -p "$WORK/root/usr/lib" "gen1:1-rev22:21" \
	>"$WORK/bible.txt"
mkdir -p "$OUT"

"$PY" - "$WORK/bible.txt" "$OUT" "$VERSION" "$TRAIN_BLAKE2" "$TEST_BLAKE2" <<'PYEOF'
import hashlib, json, os, re, sys

src, out, version, train_hash, test_hash = sys.argv[1:6]
pinned = {"train.txt": train_hash, "test.txt": test_hash}
verse = re.compile(r"^\s+\d+ (.*\S)\s*$")
verses = [m.group(1) for m in map(verse.match, open(src, encoding="ascii")) if m]
if len(verses) != 31102:
    sys.exit(f"fetch-kjv: error: {len(verses)} verses read, not the Bible's 31,102")
test = [v for i, v in enumerate(verses) if i % 10 == 9]
train = [v for i, v in enumerate(verses) if i % 10 != 9]
files = {}
for name, lines in (("train.txt", train), ("test.txt", test)):
    data = "".join(line + "\n" for line in lines).encode("ascii")
    digest = hashlib.blake2b(data, digest_size=32).hexdigest()
    if digest != pinned[name]:
        sys.exit(f"fetch-kjv: error: {name} would hash to {digest}, not {pinned[name]}")
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
    files[name] = {
        "blake2_256": digest,
        "bytes": len(data),
        "verses": len(lines),
    }
chars = sorted(set("".join(verses) + "\n"))
manifest = {
    "source": f"Debian bible-kjv-text {version}, printed by bible-kjv {version}",
    "split": "every tenth verse held out (test.txt), the rest train.txt, in order",
    "characters": "".join(chars),
    "files": files,
}
with open(os.path.join(out, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=2, sort_keys=True)
    f.write("\n")
print(f"fetch-kjv: {len(train)} training and {len(test)} held-out verses, "
      f"{len(chars)} characters, in {out}", file=sys.stderr)
PYEOF
