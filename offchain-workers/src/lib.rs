//! ML core of the gensyn workers: everything a solver or verifier does with a model,
//! without the chain or polkadot-sdk.
//!
//! - [`dataset`]: data files from `file://` / `http(s)://`, hash-checked; MNIST IDX
//!   (plain, gzip, one-file bundles), safetensors and a language model's token
//!   sequences;
//! - [`order`]: which samples each step reads (task seed + assignment randomness);
//! - [`checkpoint`]: the training state as a safetensors file, and its hash;
//! - [`tch_backend`]: training with libtorch (GPU when present), the fast path;
//! - [`tch_lm`]: repops' decoder-only language model in libtorch, and a language
//!   model's task trained with it;
//! - [`reference`]: training with repops, the reproducible path;
//! - [`proof_store`]: content-addressed checkpoints on disk and run journals;
//! - [`train`]: the checkpointing, resumable run loop over either backend;
//! - [`replay`]: the verifier's segment replay, distances and verdict;
//! - [`profile`]: Threshold-mode profiling (tch against repops on the first segments);
//! - [`jobs`]: the solver's and the verifier's work as library calls;
//! - [`progress`]: a progress bar or log lines;
//! - [`cli`]: the `gensyn-ml` command line (`evaluate` draws learning curves, `sample`
//!   draws text from a language model).

#![deny(missing_docs)]

pub mod checkpoint;
pub mod cli;
mod cli_run;
pub mod dataset;
mod evaluate;
pub mod hash;
pub mod jobs;
pub mod order;
pub mod profile;
pub mod progress;
pub mod proof_store;
pub mod reference;
pub mod replay;
mod sample;
pub mod tch_backend;
pub mod tch_lm;
pub mod train;
