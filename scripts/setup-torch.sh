#!/usr/bin/env bash
# Installs libtorch for the `tch` crate: PyPI's torch wheel in a project-local
# virtualenv shared by every clone on the machine (~/.cache/gensyn-node/venv, or
# $GENSYN_VENV), with the Python client's packages (substrate-interface, safetensors).
# Idempotent: does nothing when the pinned versions are already there. Prints the
# environment a build needs; source scripts/env.sh to get it in a shell.
#
# tch 0.24 is built against torch 2.11.0: move both pins together, never one alone.
set -euo pipefail

TORCH_VERSION="${TORCH_VERSION:-2.11.0}"

VENV="${GENSYN_VENV:-$HOME/.cache/gensyn-node/venv}"
PY="${PYTHON:-python3}"

installed_version() {
    "$VENV/bin/python" -W ignore -c 'import torch; print(torch.__version__.split("+")[0])' 2>/dev/null || true
}

if [[ ! -x "$VENV/bin/python" ]]; then
    echo "setup-torch: creating virtualenv $VENV" >&2
    "$PY" -m venv "$VENV"
fi

if [[ "$(installed_version)" == "$TORCH_VERSION" ]]; then
    echo "setup-torch: torch $TORCH_VERSION already installed in $VENV" >&2
else
    echo "setup-torch: installing torch==$TORCH_VERSION into $VENV (about a minute, 4.6 GB)" >&2
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "torch==$TORCH_VERSION"
    got="$(installed_version)"
    if [[ "$got" != "$TORCH_VERSION" ]]; then
        echo "setup-torch: error: expected torch $TORCH_VERSION, found '${got:-none}'" >&2
        exit 1
    fi
fi

# The Python client's packages (scripts/py/gensyn_client.py), pinned like torch.
CLIENT_PACKAGES=(substrate-interface==1.7.11 safetensors==0.8.0)
if ! "$VENV/bin/python" -W ignore -c 'import substrateinterface, safetensors' 2>/dev/null; then
    echo "setup-torch: installing the Python client's packages into $VENV" >&2
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${CLIENT_PACKAGES[@]}"
fi

TORCH_LIB="$("$VENV/bin/python" -W ignore -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')"
echo "# environment for building and running tch programs (or: source scripts/env.sh)"
echo "export LIBTORCH_USE_PYTORCH=1"
echo "export PATH=\"$VENV/bin:\$PATH\""
echo "export LD_LIBRARY_PATH=\"$TORCH_LIB\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}\""
