# Source this file to have clippy lint the workspace's own crates while cargo compiles
# them: clippy-driver becomes their compiler (RUSTC_WORKSPACE_WRAPPER) and `-D warnings`
# makes any lint or compiler warning a failed build. The dependencies are compiled by
# rustc as always, so a linted build shares them with a plain one; the workspace's own
# crates are compiled again when a build switches between the two. scripts/test.sh and
# scripts/economics.sh build this way, so that they share one build.
_gensyn_clippy="$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver || true)"
if [[ -n "$_gensyn_clippy" ]]; then
    export RUSTC_WORKSPACE_WRAPPER="$_gensyn_clippy"
    export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
else
    echo "lint-env.sh: clippy-driver not found; run scripts/setup.sh first" >&2
    return 1 2>/dev/null || exit 1
fi
unset _gensyn_clippy
