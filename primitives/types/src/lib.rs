//! Shared primitives of the gensyn chain: the machine-readable training task spec,
//! its validation, its work estimate, the data order of training, the Threshold-mode
//! verdict rule, and a binary Merkle tree with proofs.
//!
//! Everything here is `no_std` (with `alloc`) so that the runtime can use it; the
//! `std` feature (on by default) only switches dependencies to their `std` builds.
//!
//! Reals cannot be SCALE-encoded, so every real number of a spec is an [`F32Bits`]:
//! the IEEE-754 bits of an `f32`, SCALE-encoded as a `u32` and written in JSON as a
//! plain number.

#![cfg_attr(not(feature = "std"), no_std)]
#![deny(missing_docs)]

extern crate alloc;

pub mod bounded;
pub mod estimate;
#[cfg(feature = "test-utils")]
pub mod fixtures;
pub mod layout;
pub mod merkle;
pub mod order;
pub mod publish;
pub mod spec;
pub mod validate;
pub mod verdict;

pub use bounded::BoundedVec;
pub use estimate::{estimate, memory_mib, segment_work, GasTable, SegmentWork, WorkEstimate, GAS};
pub use merkle::{MerkleProof, DATA_CHUNK_SIZE, TENSOR_CHUNK_ELEMENTS};
pub use spec::*;
pub use validate::SpecError;
