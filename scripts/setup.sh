#!/usr/bin/env bash
# Installs everything the build, the node and the tests need, idempotently:
#   - system packages: protoc (libp2p's protobufs), lld (fast linking), node/npm
#   - the Rust wasm targets and rust-src (the wasm runtime build)
#   - libtorch for the ML workers (PyPI torch in ~/.cache/gensyn-node/venv, see setup-torch.sh)
#   - the npm packages of the polkadot.js scripts (scripts/js)
# Safe to run again: every step checks first and skips work already done.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
say() { printf '\033[1;34m[setup]\033[0m %s\n' "$*" >&2; }

need_pkgs=()
command -v protoc >/dev/null 2>&1 || need_pkgs+=(protobuf-compiler)
command -v ld.lld >/dev/null 2>&1 || need_pkgs+=(lld)
command -v cc >/dev/null 2>&1 || need_pkgs+=(build-essential)
command -v curl >/dev/null 2>&1 || need_pkgs+=(curl)
command -v node >/dev/null 2>&1 || need_pkgs+=(nodejs)
command -v npm >/dev/null 2>&1 || need_pkgs+=(npm)
command -v python3 >/dev/null 2>&1 || need_pkgs+=(python3 python3-venv)
if ((${#need_pkgs[@]})); then
	say "installing system packages: ${need_pkgs[*]}"
	SUDO=""
	[[ $(id -u) -eq 0 ]] || SUDO="sudo"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
else
	say "system packages present (protoc, lld, cc, curl, node, npm, python3)"
fi

if ! command -v cargo >/dev/null 2>&1; then
	say "error: no Rust toolchain; install one first (rustup, the Rust installer)"
	exit 1
fi
installed_targets="$(rustup target list --installed)"
for target in wasm32-unknown-unknown wasm32v1-none; do
	if ! grep -qx "$target" <<<"$installed_targets"; then
		say "adding Rust target $target"
		rustup target add "$target" >/dev/null
	fi
done
installed_components="$(rustup component list --installed)"
for component in rust-src clippy rustfmt; do
	if ! grep -q "^$component" <<<"$installed_components"; then
		say "adding $component"
		rustup component add "$component" >/dev/null
	fi
done

if [[ -x "$ROOT/scripts/setup-torch.sh" ]]; then
	"$ROOT/scripts/setup-torch.sh" >/dev/null
fi

if [[ -f "$ROOT/scripts/js/package-lock.json" ]]; then
	if [[ ! -d "$ROOT/scripts/js/node_modules/@polkadot/api" ]] ||
		[[ "$ROOT/scripts/js/package-lock.json" -nt "$ROOT/scripts/js/node_modules/.package-lock.json" ]]; then
		say "installing polkadot.js packages (scripts/js)"
		(cd "$ROOT/scripts/js" && npm ci --no-audit --no-fund --loglevel=error)
	fi
fi
say "ready"
