//! The operators a decoder-only transformer adds to the image models' five layer kinds,
//! each forward and backward with every reduction in one fixed order, as the rest of
//! repops:
//!
//! - [`embedding`]: token rows gathered from a table, and their gradient scattered back
//!   in token order;
//! - [`layernorm`]: normalisation over a row's features with a learned scale and shift;
//! - [`gelu`]: the tanh form of GELU, with `tanh` from `libm`;
//! - [`causal_softmax`]: softmax over attention scores with a causal mask;
//! - [`attention`]: one head of causal self-attention, composed of the products and the
//!   softmax;
//! - [`clip`]: the global gradient norm and the clipping scale;
//! - [`multihead`]: causal self-attention of several heads, with its four projections;
//! - [`block`]: one pre-norm decoder block, attention then a GELU MLP, each added to the
//!   residual stream;
//! - [`lm`]: a decoder-only language model of such blocks and its token cross-entropy,
//!   with every parameter's gradient;
//! - [`train`]: one step of AdamW after gradient-norm clipping, over tensors in state
//!   order;
//! - [`task`]: a spec that names such a model read as its sizes, its initial state and
//!   one step in the task state's layout, so a run trains and replays from its spec;
//! - [`ops`]: the forward pass's operators as op-graph ops, each evaluable one element
//!   (and one reduction step) at a time;
//! - [`graph`]: the op graph of the forward pass and the token loss.
//!
//! Each module spells out its definition, and its per-element functions (`*_step`,
//! `*_at`) are the ones its fast loops call, so an element evaluation for the pinpoint
//! game computes the same bits. AdamW's decoupled decay is in [`crate::optim`].
//!
//! The spec language names this model (`Embedding`, `DecoderBlock`, `LayerNorm`, a
//! `Linear` head over the positions, the token loss and AdamW; its state layout is
//! `gensyn_primitives::layout`'s) and [`task`] trains it. Its forward pass and loss
//! have an op graph ([`graph`]); its backward pass, clipping and AdamW do not yet, so
//! no whole step has one, [`crate::graph::covers`] says no and the chain takes no such
//! task.

pub mod attention;
pub mod block;
pub mod causal_softmax;
pub mod clip;
pub mod embedding;
pub mod gelu;
pub mod graph;
pub mod layernorm;
pub mod lm;
pub mod multihead;
pub mod ops;
pub mod task;
pub mod train;

#[cfg(test)]
pub(crate) mod check;
