# Source this file (`source scripts/env.sh`) to build or run tch programs against the
# torch wheel that scripts/setup-torch.sh installed into its virtualenv
# (~/.cache/gensyn-node/venv, or $GENSYN_VENV). It changes nothing when
# the virtualenv is missing, apart from a warning.
_gensyn_venv="${GENSYN_VENV:-$HOME/.cache/gensyn-node/venv}"
if [[ -x "$_gensyn_venv/bin/python" ]]; then
    export LIBTORCH_USE_PYTORCH=1
    case ":$PATH:" in
        *":$_gensyn_venv/bin:"*) ;;
        *) export PATH="$_gensyn_venv/bin:$PATH" ;;
    esac
    _gensyn_torch_lib="$(ls -d "$_gensyn_venv"/lib/python3*/site-packages/torch/lib 2>/dev/null | head -n 1)"
    if [[ -n "$_gensyn_torch_lib" ]]; then
        case ":${LD_LIBRARY_PATH:-}:" in
            *":$_gensyn_torch_lib:"*) ;;
            *) export LD_LIBRARY_PATH="$_gensyn_torch_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;;
        esac
    fi
    unset _gensyn_torch_lib
else
    echo "env.sh: $_gensyn_venv is missing; run scripts/setup-torch.sh first" >&2
fi
unset _gensyn_venv
