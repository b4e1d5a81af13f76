# Sourced by the ML benchmark scripts from the repository root: installs torch and the
# MNIST files when missing, points the build at that torch, and builds `gensyn-ml` and
# the bench examples in release.
scripts/setup-torch.sh >/dev/null
scripts/fetch-mnist.sh
# shellcheck source=../env.sh
source scripts/env.sh
cargo build --release --locked -p gensyn-workers --bin gensyn-ml --example bench --example lm_bench
