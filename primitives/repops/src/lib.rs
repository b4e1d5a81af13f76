//! Reproducible f32 tensor operators and training steps.
//!
//! Every value here is a pure function of its inputs' bits: each reduction runs in one
//! fixed sequential order (`acc = acc + a * b`, never fused, never split), `exp`, `log`,
//! `pow` and `cos` come from the `libm` crate and `sqrt` and division are IEEE-exact.
//! So a training step gives the same bits on any thread count, natively and on wasm32.
//! Fast kernels (register-blocked tiles that walk each output's reduction in order) and
//! the per-element definitions in [`element`] agree bit for bit; tests check it.
//!
//! Entry points: [`model::init_state`], [`model::train_step`], [`model::replay`],
//! [`state::TrainState::hash`], [`state::distances`], [`graph::step_graph`],
//! [`model::trace_step`], [`element`]; the transformer's operators in [`transformer`].

#![cfg_attr(not(feature = "std"), no_std)]
#![deny(missing_docs)]
// `acc = acc + a * b` spells out the one order of every reduction step.
#![allow(clippy::assign_op_pattern)]

extern crate alloc;

pub mod conv;
pub mod dispute;
pub mod element;
pub mod graph;
pub mod init;
pub mod kernel;
pub mod linear;
pub mod loss;
pub mod model;
pub mod optim;
pub mod par;
pub mod pointwise;
pub mod pool;
pub mod relu;
pub mod selftest;
pub mod state;
pub mod threshold;
pub mod transformer;

pub use gensyn_primitives as primitives;

/// Errors of repops.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ReproError {
	/// The task spec is invalid.
	Spec(gensyn_primitives::SpecError),
	/// A buffer's length does not match the shape it should have.
	ShapeMismatch,
	/// The batch is empty or larger than the spec's batch size.
	BadBatch,
	/// A label is not below the number of classes.
	LabelOutOfRange,
	/// A token is not below the vocabulary's size.
	TokenOutOfRange,
	/// An op, tensor, element or reduction index is out of range.
	OutOfRange,
	/// A value needed by an element evaluation was not provided.
	MissingOperand,
	/// The state does not fit the model (wrong tensor count or size).
	StateMismatch,
	/// A data sample could not be read.
	Data,
	/// The spec names a model, loss or optimizer repops has no step for (no step graph,
	/// [`graph::covers`], and no language model [`transformer::task`] builds), or the
	/// data lacks what the step reads (token sequences).
	Unsupported,
}

impl From<gensyn_primitives::SpecError> for ReproError {
	fn from(e: gensyn_primitives::SpecError) -> Self {
		ReproError::Spec(e)
	}
}

impl core::fmt::Display for ReproError {
	fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
		core::fmt::Debug::fmt(self, f)
	}
}

#[cfg(feature = "std")]
impl std::error::Error for ReproError {}

/// Result of repops.
pub type Result<T> = core::result::Result<T, ReproError>;
