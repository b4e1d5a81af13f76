//! The layout of a task's training state: every parameter tensor's shape, in state
//! order, and the optimizer's slots for each. The chain (published pages, evidence),
//! repops (the step graph) and the workers (checkpoints) read this one list.

use crate::spec::{Layer, Optimizer, TaskSpec};
use alloc::{vec, vec::Vec};

/// The shape of every parameter tensor of `spec`'s model, in state order: layer by
/// layer, a `Linear`'s or `Conv2d`'s weight then bias; an `Embedding`'s token table
/// `[vocab, dim]` then position table `[t, dim]`; a `DecoderBlock`'s first LayerNorm
/// (scale, shift), its query, key, value and output projections (each weight `[d, d]`
/// then bias), its second LayerNorm, and its MLP (`[hidden, d]`, `[hidden]`,
/// `[d, hidden]`, `[d]`); a `LayerNorm`'s scale then shift. For a spec that does not
/// validate the list means nothing.
pub fn param_shapes(spec: &TaskSpec) -> Vec<Vec<u32>> {
	let t = spec.model.input.width;
	// Features of the sequence a layer reads (set by the layer before it).
	let mut d = 0u32;
	let mut v = Vec::new();
	for l in spec.model.layers.iter() {
		match *l {
			Layer::Linear { in_features, out_features } => {
				v.push(vec![out_features, in_features]);
				v.push(vec![out_features]);
				d = out_features;
			}
			Layer::Conv2d { in_channels, out_channels, kernel, .. } => {
				v.push(vec![out_channels, in_channels, kernel, kernel]);
				v.push(vec![out_channels]);
			}
			Layer::Embedding { vocab, dim } => {
				v.push(vec![vocab, dim]);
				v.push(vec![t, dim]);
				d = dim;
			}
			Layer::DecoderBlock { hidden, .. } => {
				v.extend([vec![d], vec![d]]);
				for _ in 0..4 {
					v.extend([vec![d, d], vec![d]]);
				}
				v.extend([vec![d], vec![d]]);
				v.extend([vec![hidden, d], vec![hidden], vec![d, hidden], vec![d]]);
			}
			Layer::LayerNorm => v.extend([vec![d], vec![d]]),
			Layer::Relu | Layer::MaxPool2d { .. } | Layer::Flatten => {}
		}
	}
	v
}

/// Optimizer-state tensors per parameter tensor: 1 (SGD's momentum buffer) or 2
/// (Adam's and AdamW's moments).
pub fn opt_slots(opt: &Optimizer) -> usize {
	match opt {
		Optimizer::Sgd { .. } => 1,
		Optimizer::Adam { .. } | Optimizer::AdamW { .. } => 2,
	}
}
