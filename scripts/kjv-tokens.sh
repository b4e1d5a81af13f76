#!/usr/bin/env bash
# Writes the token file that a language model's spec names, from the King James Bible
# that scripts/fetch-kjv.sh builds: the training verses cut into sequences of the spec's
# context (`model.input.width`) plus one, at most the spec's `samples` of them, written to
# the spec's `file://` data URI (relative to the repository). The file must be the one
# the spec commits to (its hash and chunk root), or the script fails, writing nothing
# there. Idempotent: a file already there with the spec's hash is kept.
#
#   scripts/kjv-tokens.sh examples/charlm-small.json
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SPEC="${1:?usage: kjv-tokens.sh SPEC}"
PY="${PYTHON:-python3}"
cd "$ROOT"
scripts/fetch-kjv.sh >&2
KJV="${KJV_DIR:-$ROOT/.data/kjv}"
"$PY" - "$SPEC" "$KJV" <<'PYEOF'
import json, os, subprocess, sys, tempfile
spec_path, kjv = sys.argv[1], sys.argv[2]
data = json.load(open(spec_path))["data"]
if data.get("format") != "tokens":
    sys.exit(f"kjv-tokens: {spec_path} does not name token data")
uri = data["uri"]
if not uri.startswith("file://"):
    sys.exit(f"kjv-tokens: {spec_path} names {uri}, not a file:// path")
out = uri[len("file://"):]
tool = os.path.join("scripts", "py", "gensyn_data.py")
sys.path.insert(0, os.path.dirname(tool))
from gensyn_data import blake2_256
if os.path.exists(out):
    if "0x" + blake2_256(open(out, "rb").read()).hex() == data["file_hash"]:
        print(f"kjv-tokens: {out} is the spec's", file=sys.stderr)
        sys.exit(0)
os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
fd, tmp = tempfile.mkstemp(dir=os.path.dirname(out) or ".", suffix=".tokens")
os.close(fd)
try:
    made = json.loads(subprocess.check_output([
        sys.executable, tool, "tokens", "--text", os.path.join(kjv, "train.txt"),
        "--manifest", os.path.join(kjv, "manifest.json"),
        "--context", str(data["input"]["width"]), "--sequences", str(data["samples"]),
        "--out", tmp, "--uri", uri,
    ]))
    if made != data:
        sys.exit(f"kjv-tokens: the text cuts to {made}, not the spec's data {data}")
    os.chmod(tmp, 0o644)
    os.replace(tmp, out)
finally:
    if os.path.exists(tmp):
        os.remove(tmp)
print(f"kjv-tokens: wrote {out} ({data['samples']} sequences)", file=sys.stderr)
PYEOF
