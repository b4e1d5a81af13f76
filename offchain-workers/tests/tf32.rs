//! libtorch allows TensorFloat-32 in cuDNN convolutions by default; a trainer turns
//! it off for the process, so a GPU run stays as close to a float32 replay as a CPU run
//! (see `tch_backend`). Alone in its test binary: the default can only be seen in a
//! process where no trainer was built yet.

use gensyn_primitives::TaskSpec;
use gensyn_workers::reference;
use gensyn_workers::tch_backend::{self, TchTrainer};

#[test]
fn a_trainer_turns_tf32_off() {
	assert!(tch_backend::tf32_allowed(), "libtorch's default allows TF32 convolutions");
	let spec: TaskSpec =
		serde_json::from_str(include_str!("../../examples/mnist-mlp.json")).unwrap();
	let init = reference::initial_state(&spec).unwrap();
	drop(TchTrainer::new(&spec, &init, tch::Device::Cpu).unwrap());
	assert!(!tch_backend::tf32_allowed(), "a trainer must turn TF32 off");
}
