//! The pinpoint game's records: who plays, where the game stands, and what a move opens.

use codec::{Decode, DecodeWithMemTracking, Encode, MaxEncodedLen};
use frame_support::{pallet_prelude::ConstU32, BoundedVec};
use scale_info::TypeInfo;

/// Most sibling hashes in one Merkle proof (trees of up to 2^32 leaves).
pub const MAX_SIBLINGS: u32 = 32;
/// Values in one tensor chunk (`gensyn_primitives::TENSOR_CHUNK_ELEMENTS`).
pub const CHUNK_VALUES: u32 = 64;
/// Bytes in one data chunk (`gensyn_primitives::DATA_CHUNK_SIZE`).
pub const DATA_CHUNK_BYTES: u32 = 1024;
/// Most tensor openings one answer carries (an element-wise op reads at most three
/// inputs, a reduction term two values plus its initial value).
pub const MAX_OPENINGS: u32 = 4;
/// Dissection points per bisection move: 16 cuts each round's interval 17-fold.
pub const MAX_POINTS: u32 = 16;

/// Most steps of a segment whose Threshold distance a game can rule on: the chain
/// carries the optimizer over them for the one disputed term (a few hundred ns a step).
pub const MAX_CARRY_STEPS: u64 = 100_000;

/// A 32-byte hash.
pub type Hash32 = [u8; 32];

/// Sibling hashes of a Merkle proof, from the leaf level up.
pub type Siblings = BoundedVec<Hash32, ConstU32<MAX_SIBLINGS>>;

/// A dispute is about one audited segment of one task.
pub type DisputeKey = (u64, u32);

/// The two players.
#[derive(
	Clone,
	Copy,
	PartialEq,
	Eq,
	Debug,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
)]
pub enum Party {
	/// The verifier whose replay is challenged; it commits to values, level by level.
	Defendant,
	/// The whistleblower (or solver) that challenged; it names what it disputes.
	Challenger,
}

/// Where a game stands. Step indices are relative to the segment's first step.
#[derive(
	Clone,
	Copy,
	PartialEq,
	Eq,
	Debug,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
)]
pub enum Stage {
	/// The defendant proves the segment's start root (the solver's checkpoint).
	Start,
	/// (a) Bisection over steps `lo..hi`: the state root after `lo` steps is agreed,
	/// the one after `hi` steps is disputed.
	Steps {
		/// Last agreed step.
		lo: u64,
		/// First disputed step.
		hi: u64,
		/// Agreed state root.
		lo_root: Hash32,
		/// Disputed state root.
		hi_root: Hash32,
	},
	/// (b) The defendant opens step `step` (`hi = step + 1`): the root of every tensor
	/// of the step's graph, consistent with both state roots.
	OpenStep {
		/// The step.
		step: u64,
		/// Agreed state root before it.
		lo_root: Hash32,
		/// Disputed state root after it.
		hi_root: Hash32,
	},
	/// (b) The challenger names the tensor it disputes (an op output or the batch).
	PickTensor {
		/// The step.
		step: u64,
	},
	/// (c) Descent of that tensor's Merkle tree: `node` is the disputed node at
	/// `height` above the leaves, index `index` in its level. The defendant reveals the
	/// nodes up to four levels below it and the challenger picks one; at height 0 the
	/// defendant opens the chunk's values instead.
	Descend {
		/// The step.
		step: u64,
		/// Tensor id in the step's graph.
		tensor: u32,
		/// Height of `node` above the leaves.
		height: u32,
		/// Index of `node` in its level.
		index: u64,
		/// The disputed node.
		node: Hash32,
	},
	/// (c) The chunk is open (values in `OpenedChunks`); the challenger names one
	/// element of it.
	PickElement {
		/// The step.
		step: u64,
		/// Tensor id.
		tensor: u32,
		/// Chunk index.
		chunk: u64,
	},
	/// (c) The defendant answers for the disputed element.
	Element {
		/// The step.
		step: u64,
		/// Tensor id in the step's graph.
		tensor: u32,
		/// Flat element index.
		elem: u64,
		/// The defendant's value of it (f32 bits).
		value: u32,
	},
	/// (d) Bisection over the element's fixed-order reduction: the accumulator after
	/// `lo` terms is agreed, the one after `hi` terms disputed. At `hi = lo + 1` the
	/// defendant opens term `lo`'s operands and the chain computes it.
	Reduction {
		/// The step.
		step: u64,
		/// Tensor id.
		tensor: u32,
		/// Flat element index.
		elem: u64,
		/// Agreed terms.
		lo: u64,
		/// Disputed terms.
		hi: u64,
		/// Accumulator after `lo` terms (f32 bits; unused at `lo = 0`, the initial value).
		lo_acc: u32,
		/// Accumulator after `hi` terms (f32 bits).
		hi_acc: u32,
	},
	/// A Threshold-mode verdict: the challenger names what it disputes, the replay's
	/// root (the game goes on at `Start`) or the distance the verdict posted from it
	/// (`Sums`).
	Choose,
	/// The defendant posts the sums its distance is computed from
	/// (`gensyn_repops::threshold::sums_of`), which must give the posted distance; the
	/// challenger then names the first it disputes.
	Sums,
	/// Bisection over the terms of sum `sum`: the accumulator after `lo` terms is
	/// agreed, the one after `hi` terms disputed. At `hi = lo + 1` the defendant proves
	/// the values term `lo` reads and the chain computes it.
	Sum {
		/// Index of the sum in `sums_of`'s order.
		sum: u32,
		/// Agreed terms.
		lo: u64,
		/// Disputed terms.
		hi: u64,
		/// Accumulator after `lo` terms (f64 bits; zero at `lo = 0`).
		lo_acc: u64,
		/// Accumulator after `hi` terms (f64 bits).
		hi_acc: u64,
	},
}

/// What the challenger of a Threshold-mode verdict disputes.
#[derive(
	Clone,
	Copy,
	PartialEq,
	Eq,
	Debug,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
)]
pub enum Subject {
	/// The replay's root: the game over the segment's steps.
	Replay,
	/// The distance, computed from that root's state and the solver's checkpoints.
	Distance,
}

/// Values a defendant posted at dissection points, waiting for the challenger's pick.
#[derive(
	Clone, PartialEq, Eq, Debug, Encode, Decode, DecodeWithMemTracking, MaxEncodedLen, TypeInfo,
)]
pub enum Posted {
	/// Nothing posted (the defendant is to move).
	Nothing,
	/// State roots at the step dissection points, or Merkle nodes of a descent.
	Roots(BoundedVec<Hash32, ConstU32<MAX_POINTS>>),
	/// Accumulators (f32 bits) at the reduction dissection points.
	Accs(BoundedVec<u32, ConstU32<MAX_POINTS>>),
	/// A distance's sums, or a sum's accumulators at the dissection points (f64 bits).
	Sums(BoundedVec<u64, ConstU32<MAX_POINTS>>),
}

/// One chunk of a tensor of the disputed step, with its Merkle proof under the
/// tensor's root (opened in `open_step`).
#[derive(
	Clone, PartialEq, Eq, Debug, Encode, Decode, DecodeWithMemTracking, MaxEncodedLen, TypeInfo,
)]
pub struct TensorOpening {
	/// Tensor id in the step's graph.
	pub tensor: u32,
	/// Chunk index (elements `64 * chunk ..`).
	pub chunk: u32,
	/// The chunk's values, f32 bits.
	pub values: BoundedVec<u32, ConstU32<CHUNK_VALUES>>,
	/// Sibling hashes.
	pub siblings: Siblings,
}

/// One chunk of the task's data file, with its Merkle proof under the data's chunk root.
#[derive(
	Clone, PartialEq, Eq, Debug, Encode, Decode, DecodeWithMemTracking, MaxEncodedLen, TypeInfo,
)]
pub struct DataOpening {
	/// The chunk's bytes.
	pub bytes: BoundedVec<u8, ConstU32<DATA_CHUNK_BYTES>>,
	/// Sibling hashes.
	pub siblings: Siblings,
}

/// One value of a training state, proven under the state's root: the root of the
/// tensor holding it (a leaf of the state's tree, after the step's) and the chunk
/// holding it under that root.
#[derive(
	Clone, PartialEq, Eq, Debug, Encode, Decode, DecodeWithMemTracking, MaxEncodedLen, TypeInfo,
)]
pub struct StateValue {
	/// The tensor's root.
	pub tensor_root: Hash32,
	/// Sibling hashes of the tensor's root in the state's tree.
	pub tensor_siblings: Siblings,
	/// The chunk's values, f32 bits.
	pub values: BoundedVec<u32, ConstU32<CHUNK_VALUES>>,
	/// Sibling hashes of the chunk under the tensor's root.
	pub siblings: Siblings,
}

/// Values of one of the solver's checkpoints: its state root proven under the
/// checkpoint root, and values under it.
#[derive(
	Clone, PartialEq, Eq, Debug, Encode, Decode, DecodeWithMemTracking, MaxEncodedLen, TypeInfo,
)]
pub struct CheckpointValues {
	/// The checkpoint's state root.
	pub state_root: Hash32,
	/// Sibling hashes of it under the checkpoint root.
	pub siblings: Siblings,
	/// The values: one for an off sum; for a work sum the parameter, then each of its
	/// optimizer slots.
	pub values: BoundedVec<StateValue, ConstU32<3>>,
}

/// What the defendant proves for the one disputed term of a distance's sum: the
/// values it reads, each under its state's root (the replay's is the verdict's).
#[derive(
	Clone, PartialEq, Eq, Debug, Encode, Decode, DecodeWithMemTracking, MaxEncodedLen, TypeInfo,
)]
pub struct SumTerm {
	/// The replay's value (off and work sums).
	pub replayed: Option<StateValue>,
	/// The solver's checkpoint at the segment's end (off sums).
	pub claimed: Option<CheckpointValues>,
	/// The solver's checkpoint at the segment's start (work sums).
	pub start: Option<CheckpointValues>,
}

/// How the defendant answers for the disputed element.
#[derive(
	Clone, PartialEq, Eq, Debug, Encode, Decode, DecodeWithMemTracking, MaxEncodedLen, TypeInfo,
)]
pub enum ElementAnswer {
	/// A batch value: the data chunk it was read from (the chain locates it).
	Data(DataOpening),
	/// A reduction: the final accumulator (f32 bits) the element was finished from.
	Reduction(u32),
	/// An element-wise op: the operands it reads (the chain evaluates it).
	Operands(BoundedVec<TensorOpening, ConstU32<MAX_OPENINGS>>),
}

/// Why a game ended.
#[derive(
	Clone,
	Copy,
	PartialEq,
	Eq,
	Debug,
	Encode,
	Decode,
	DecodeWithMemTracking,
	MaxEncodedLen,
	TypeInfo,
)]
pub enum Ruling {
	/// The party to move let its deadline pass.
	Timeout(Party),
	/// A party gave up.
	Conceded(Party),
	/// The chain read the batch value from the data file.
	DataChecked,
	/// The chain evaluated the element-wise op.
	ElementComputed,
	/// The chain computed the single reduction step.
	StepComputed,
	/// The chain computed the one disputed term of a distance's sum.
	SumComputed,
}
