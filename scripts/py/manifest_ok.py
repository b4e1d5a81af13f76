"""Exits 0 when DIR/manifest.json exists and every file it lists has its blake2-256
hash (and, with --layout N, when the manifest says layout N); 1 otherwise. The fetch
scripts run it first, so that data already fetched is not fetched again.

    python3 scripts/py/manifest_ok.py DIR [--layout N]
"""
import hashlib
import json
import os
import sys


def main(argv):
    out = argv[1]
    layout = int(argv[argv.index("--layout") + 1]) if "--layout" in argv else None
    try:
        manifest = json.load(open(os.path.join(out, "manifest.json")))
        if layout is not None and manifest.get("layout") != layout:
            return 1
        for name, meta in manifest["files"].items():
            with open(os.path.join(out, name), "rb") as f:
                if hashlib.blake2b(f.read(), digest_size=32).hexdigest() != meta["blake2_256"]:
                    return 1
    except (OSError, KeyError, ValueError, IndexError):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
