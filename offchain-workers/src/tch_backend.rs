//! The fast path: training with libtorch through `tch`, on the GPU when there is one.
//!
//! The model is built from the task spec as plain tensors (no `nn` modules), so its
//! parameters are exactly the checkpoint's, in the same order and layout as repops:
//! `Linear` weight `[out, in]` and bias `[out]`, `Conv2d` weight `[out, in, k, k]` and
//! bias `[out]`. The optimizers are written out with tensor ops to the same
//! definitions repops uses (so their state can be checkpointed and replayed), and the
//! learning rate of each step comes from the same schedule function.
//!
//! On a GPU a step of these small models is bound by kernel launches, so the
//! parameters live in one flat tensor (each parameter a view of it, and still a leaf of
//! its own) and so does each optimizer slot: the update then takes a dozen element-wise
//! kernels over all parameters at once, whatever their number, like PyTorch's
//! multi-tensor optimizers. Nothing waits for the device within a step.

use crate::checkpoint::{state_shapes, TrainState};
use crate::dataset::Dataset;
use gensyn_primitives::{Layer, Optimizer, TaskSpec, TrainingSpec};
use gensyn_repops::optim::{adam_scalars, lr_at};
use std::sync::Arc;
use tch::{Device, Kind, TchError, Tensor};

/// A model and its optimizer living on one libtorch device.
pub struct TchTrainer {
	device: Device,
	layers: Vec<Layer>,
	input: [i64; 3],
	/// All parameters, one after another in checkpoint order, flattened.
	flat: Tensor,
	/// The parameters, in checkpoint order: views of `flat` (sharing its storage) that
	/// are autograd leaves of their own.
	params: Vec<Tensor>,
	/// Where each parameter lies in `flat`: (offset, length).
	spans: Vec<(usize, usize)>,
	optimizer: Optimizer,
	training: TrainingSpec,
	/// Optimizer state, one flat tensor per slot laid out as `flat`: SGD's buffer, or
	/// Adam's m and v. The checkpoint holds them in repops' order: per parameter SGD's
	/// buffer, or Adam's m, v.
	opt: Vec<Tensor>,
	step: u64,
	data: Option<(Tensor, Tensor)>,
	last_loss: Option<Tensor>,
}

/// The device to train on: the first CUDA GPU when libtorch can use one, else the CPU.
///
/// The linker drops `libtorch_cuda.so` from the binary because no symbol of it is named
/// (it only registers the CUDA backend when loaded), so it is loaded here by name, from
/// the same library path as the rest of libtorch. Without it (a CPU-only wheel, or no
/// driver) the answer is simply the CPU.
pub fn best_device() -> Device {
	load_cuda_backend();
	Device::cuda_if_available()
}

/// The CPU when `cpu_only`, else [`best_device`].
pub fn device(cpu_only: bool) -> Device {
	if cpu_only {
		Device::Cpu
	} else {
		best_device()
	}
}

#[cfg(target_os = "linux")]
fn load_cuda_backend() {
	use std::sync::Once;
	static LOAD: Once = Once::new();
	LOAD.call_once(|| {
		extern "C" {
			fn dlopen(file: *const std::ffi::c_char, mode: i32) -> *mut std::ffi::c_void;
		}
		const RTLD_NOW: i32 = 2;
		const RTLD_GLOBAL: i32 = 0x100;
		// SAFETY: a NUL-terminated name; the handle is kept for the life of the process.
		let handle = unsafe { dlopen(c"libtorch_cuda.so".as_ptr(), RTLD_NOW | RTLD_GLOBAL) };
		if handle.is_null() {
			tracing::debug!("libtorch_cuda.so not loadable: training on the CPU");
		}
	});
}

#[cfg(not(target_os = "linux"))]
fn load_cuda_backend() {}

/// libtorch's process-wide switches for TensorFloat-32, reached through their C++
/// symbols (tch has no binding for them). TF32 keeps 10 of float32's 23 mantissa bits in
/// the products of a matrix unit, and libtorch allows it by default for cuDNN
/// convolutions. A solver training with it would end a segment further from a float32
/// replay (repops, or libtorch on a CPU) than a Threshold profiled in float32 allows,
/// and an honest run would fail its audit; so every device multiplies in float32.
///
/// The declarations follow `ATen/Context.h` of libtorch 2.11, which torch-sys builds
/// against (it refuses another version unless `LIBTORCH_BYPASS_VERSION_CHECK` is set):
/// `at::globalContext()` returns the context, and a member function takes it as its
/// first argument (the Itanium C++ ABI, as on x86-64 and AArch64 Linux). None of these
/// throws for these arguments; were one to, `C-unwind` makes that defined behaviour.
pub(crate) mod tf32 {
	use std::ffi::c_void;

	/// `at::Float32Backend::CUDA`.
	const CUDA: i32 = 1;
	/// `at::Float32Op::CONV`.
	const CONV: i32 = 1;
	/// `at::Float32Op::MATMUL`.
	const MATMUL: i32 = 3;
	/// `at::Float32Precision::TF32`.
	const TF32: i32 = 2;

	extern "C-unwind" {
		#[link_name = "_ZN2at13globalContextEv"]
		fn global_context() -> *mut c_void;
		#[link_name = "_ZN2at7Context17setAllowTF32CuDNNEb"]
		fn set_allow_tf32_cudnn(context: *mut c_void, allow: bool);
		#[link_name = "_ZN2at7Context18setAllowTF32CuBLASEb"]
		fn set_allow_tf32_cublas(context: *mut c_void, allow: bool);
		#[link_name = "_ZNK2at7Context16float32PrecisionENS_14Float32BackendENS_9Float32OpE"]
		fn float32_precision(context: *const c_void, backend: i32, op: i32) -> i32;
	}

	/// Turns TF32 off for the whole process, once: for cuDNN (convolutions and RNNs,
	/// through the setter that keeps the two consistent) and for cuBLAS (matrix
	/// products; off by default).
	pub fn forbid() {
		static ONCE: std::sync::Once = std::sync::Once::new();
		// SAFETY: the context is libtorch's static; the setters only store flags.
		ONCE.call_once(|| unsafe {
			let context = global_context();
			set_allow_tf32_cudnn(context, false);
			set_allow_tf32_cublas(context, false);
		});
	}

	/// Whether libtorch may multiply in TF32 on a CUDA device now, in a convolution or
	/// a matrix product (its default for convolutions). [`TchTrainer::new`] turns it
	/// off for the process.
	///
	/// [`TchTrainer::new`]: super::TchTrainer::new
	pub fn allowed() -> bool {
		// SAFETY: as in `forbid`; the getters only read flags.
		unsafe {
			let context = global_context();
			[CONV, MATMUL].iter().any(|&op| float32_precision(context, CUDA, op) == TF32)
		}
	}
}

pub use tf32::allowed as tf32_allowed;

/// The state of step `step` from the flat parameters and optimizer slots (laid out by
/// `spans`), copied to host memory: repops' layout, one vector per tensor.
fn host_state(
	step: u64,
	spans: &[(usize, usize)],
	flat: &Tensor,
	opt: &[Tensor],
) -> Result<TrainState, TchError> {
	let split = |t: &Tensor| -> Result<Vec<Vec<f32>>, TchError> {
		let all = to_vec(t)?;
		spans
			.iter()
			.map(|&(offset, len)| {
				all.get(offset..offset + len).map(<[f32]>::to_vec).ok_or_else(|| {
					TchError::Shape(format!("{} values, not {}", all.len(), offset + len))
				})
			})
			.collect()
	};
	// Repops' order: per parameter, each slot.
	let mut slots =
		opt.iter().map(|t| split(t).map(Vec::into_iter)).collect::<Result<Vec<_>, _>>()?;
	let mut opt = Vec::with_capacity(spans.len() * slots.len());
	for _ in spans {
		opt.extend(slots.iter_mut().filter_map(|s| s.next()));
	}
	debug_assert_eq!(opt.len(), spans.len() * slots.len(), "one slot tensor per parameter");
	Ok(TrainState { step, params: split(flat)?, opt })
}

/// `t`'s values in host memory, flattened.
fn to_vec(t: &Tensor) -> Result<Vec<f32>, TchError> {
	let flat = t.f_detach()?.f_to_device(Device::Cpu)?.f_contiguous()?.f_view(-1)?;
	Vec::<f32>::try_from(&flat)
}

/// `values` concatenated into one flat tensor on `device` (one upload).
fn to_flat(values: &[&[f32]], device: Device) -> Result<Tensor, TchError> {
	Tensor::f_from_slice(&values.concat())?.f_to_device(device)
}

/// `e`'s message, without the C++ stack trace libtorch appends to its own errors.
pub fn describe(e: &TchError) -> String {
	let text = match e {
		TchError::Torch(message) => message.clone(),
		other => other.to_string(),
	};
	match text.split_once("\nException raised from") {
		Some((message, _)) => message.trim_end().to_string(),
		None => text,
	}
}

/// `e` as the message of a failed libtorch call: `libtorch: ` and [`describe`].
pub fn libtorch_failure(e: &TchError) -> String {
	format!("libtorch: {}", describe(e))
}

/// An error of this module's own (not libtorch's), in libtorch's error type.
fn own_error(what: impl Into<String>) -> TchError {
	TchError::Torch(what.into())
}

impl TchTrainer {
	/// Builds the model of `spec` on `device` with the parameters and optimizer state
	/// of `state`, which must fit the model (`checkpoint::check`). Float32 arithmetic
	/// on every device: TF32 is turned off for the process first.
	///
	/// Errors: the spec is one this trainer does not build (a language model's layers,
	/// loss or optimizer: the same ones repops has no step graph for; [`trainer`] gives
	/// [`crate::tch_lm::TchLmTrainer`] the language models it builds), or the device
	/// cannot hold the model (out of memory) or failed earlier.
	pub fn new(spec: &TaskSpec, state: &TrainState, device: Device) -> Result<Self, TchError> {
		if !gensyn_repops::graph::covers(spec) {
			return Err(own_error("this engine trains image models only, not this spec's model"));
		}
		tf32::forbid();
		let (param_shapes, _) = state_shapes(spec);
		let mut spans = Vec::with_capacity(param_shapes.len());
		let mut offset = 0;
		for shape in &param_shapes {
			let len = shape.iter().product::<usize>();
			spans.push((offset, len));
			offset += len;
		}
		let values: Vec<&[f32]> = state.params.iter().map(|v| &v[..]).collect();
		let flat = to_flat(&values, device)?;
		let params = spans
			.iter()
			.zip(&param_shapes)
			.map(|(&(offset, len), shape)| {
				let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
				// `detach` keeps the storage (the optimizer updates `flat` in place) but
				// makes each view a leaf, whose gradient backward returns.
				flat.f_narrow(0, offset as i64, len as i64)?
					.f_view(&dims[..])?
					.f_detach()?
					.f_set_requires_grad(true)
			})
			.collect::<Result<_, _>>()?;
		// Slot `r` of parameter `j` is `state.opt[j * slots + r]`.
		let slots = if param_shapes.is_empty() { 0 } else { state.opt.len() / param_shapes.len() };
		let opt = (0..slots)
			.map(|r| {
				let values: Vec<&[f32]> =
					state.opt.iter().skip(r).step_by(slots).map(|v| &v[..]).collect();
				to_flat(&values, device)
			})
			.collect::<Result<_, _>>()?;
		let i = spec.model.input;
		Ok(Self {
			device,
			layers: spec.model.layers.iter().copied().collect(),
			input: [i.channels as i64, i.height as i64, i.width as i64],
			flat,
			params,
			spans,
			optimizer: spec.training.optimizer,
			training: spec.training,
			opt,
			step: state.step,
			data: None,
			last_loss: None,
		})
	}

	/// The device it trains on.
	pub fn device(&self) -> Device {
		self.device
	}

	/// [`TchTrainer::new`] then [`TchTrainer::load_data`]: a trainer ready to step, or
	/// libtorch's error as a message (`libtorch: ...`).
	pub fn with_data(
		spec: &TaskSpec,
		state: &TrainState,
		device: Device,
		data: &Dataset,
	) -> Result<Self, String> {
		let mut t = Self::new(spec, state, device).map_err(|e| libtorch_failure(&e))?;
		t.load_data(data).map_err(|e| libtorch_failure(&e))?;
		Ok(t)
	}

	/// Copies the whole training set to the device once; steps then gather batches there.
	/// Error: the device cannot hold it.
	pub fn load_data(&mut self, data: &Dataset) -> Result<(), TchError> {
		self.data = Some(upload(data, self.input, self.device)?);
		Ok(())
	}

	/// The logits of a batch `x` of shape `[N, C, H, W]`. Error: the device failed.
	pub fn forward(&self, x: &Tensor) -> Result<Tensor, TchError> {
		let mut x = x.shallow_clone();
		let mut p = self.params.iter();
		let mut weight_and_bias =
			|| p.next().zip(p.next()).ok_or_else(|| own_error("a layer without its parameters"));
		for layer in &self.layers {
			x = match *layer {
				Layer::Linear { .. } => {
					let (w, b) = weight_and_bias()?;
					x.f_linear(w, Some(b))?
				}
				Layer::Conv2d { stride, padding, .. } => {
					let (w, b) = weight_and_bias()?;
					let (s, pad) = (stride as i64, padding as i64);
					x.f_conv2d(w, Some(b), [s, s], [pad, pad], [1, 1], 1)?
				}
				Layer::Relu => x.f_relu()?,
				Layer::MaxPool2d { kernel, stride } => {
					let (k, s) = (kernel as i64, stride as i64);
					x.f_max_pool2d([k, k], [s, s], [0, 0], [1, 1], false)?
				}
				Layer::Flatten => x.f_flatten(1, -1)?,
				// Refused when the trainer was built.
				Layer::Embedding { .. } | Layer::DecoderBlock { .. } | Layer::LayerNorm => {
					return Err(own_error("a language model's layer"))
				}
			};
		}
		Ok(x)
	}

	/// One training step on the samples `batch` of the loaded data set; returns the
	/// batch's mean loss as a device scalar (reading it waits for the device, so
	/// callers read it only when they show it).
	///
	/// Errors: no data set was loaded ([`TchTrainer::load_data`]), a sample index is
	/// out of range (checked here: on a GPU libtorch would only find it in a kernel,
	/// and the device would be lost), or the device failed (out of memory, say). The
	/// step then did not complete, and the trainer should be dropped.
	pub fn step(&mut self, batch: &[u32]) -> Result<Tensor, TchError> {
		let (inputs, labels) =
			self.data.as_ref().ok_or_else(|| own_error("no data set loaded (load_data)"))?;
		let samples = inputs.size().first().copied().unwrap_or(0);
		if let Some(i) = batch.iter().find(|&&i| i64::from(i) >= samples) {
			return Err(own_error(format!("sample {i} is past the data set ({samples} samples)")));
		}
		let idx: Vec<i64> = batch.iter().map(|&i| i64::from(i)).collect();
		let idx = Tensor::f_from_slice(&idx)?;
		// A plain upload would wait for the device (all kernels queued so far); from
		// pinned memory it is queued like a kernel. The pinned block is not reused until
		// the copy is done.
		let idx = if self.device.is_cuda() {
			idx.f_internal_pin_memory(self.device)?.f_to_device_(
				self.device,
				Kind::Int64,
				true,
				false,
			)?
		} else {
			idx.f_to_device(self.device)?
		};
		let x = inputs.f_index_select(0, &idx)?;
		let y = labels.f_index_select(0, &idx)?;
		let loss = self.forward(&x)?.f_log_softmax(-1, Kind::Float)?.f_nll_loss(
			&y,
			None::<Tensor>,
			tch::Reduction::Mean,
			-100,
		)?;
		// Gradients as fresh tensors (no zeroing, no accumulation into `.grad`).
		let grads = Tensor::f_run_backward(&[&loss], &self.params, false, false)?;
		let lr = lr_at(&self.training, self.step) as f64;
		tch::no_grad(|| self.update(&grads, lr))?;
		self.step += 1;
		loss.f_detach()
	}

	/// The optimizer step over the flat parameters, slots and gradients: element-wise,
	/// each element updated as repops' definitions (up to float rounding).
	fn update(&mut self, grads: &[Tensor], lr: f64) -> Result<(), TchError> {
		// One kernel: all gradients after one another, laid out as `flat`.
		let g = Tensor::f_flatten_dense_tensors(grads)?;
		// Scalars are kernel arguments: no device scalar, no copy to the device.
		match (self.optimizer, &mut self.opt[..]) {
			(Optimizer::Sgd { momentum, .. }, [buf]) => {
				let mu = momentum.to_f32() as f64;
				let _ = buf.f_mul_scalar_(mu)?;
				let _ = buf.f_add_(&g)?;
				// p - lr * buf, as repops rounds it.
				let _ = self.flat.f_sub_(&buf.f_mul_scalar(lr)?)?;
			}
			(Optimizer::Adam { beta1, beta2, eps, .. }, [m, v]) => {
				let (b1, b2) = (beta1.to_f32() as f64, beta2.to_f32() as f64);
				let s = adam_scalars(
					lr as f32,
					beta1.to_f32(),
					beta2.to_f32(),
					eps.to_f32(),
					self.step,
				);
				let _ = m.f_mul_scalar_(b1)?;
				let _ = m.f_add_(&g.f_mul_scalar(1.0 - b1)?)?;
				let _ = v.f_mul_scalar_(b2)?;
				let _ = v.f_addcmul_(&g.f_mul_scalar(1.0 - b2)?, &g)?;
				let mut denom = v.f_sqrt()?;
				let _ = denom.f_div_scalar_(s.bc2_sqrt as f64)?;
				let _ = denom.f_add_scalar_(s.eps as f64)?;
				let _ = self.flat.f_addcdiv_(&m.f_mul_scalar(-s.step_size as f64)?, &denom)?;
			}
			_ => return Err(own_error("the optimizer state does not have the optimizer's slots")),
		}
		Ok(())
	}

	/// Steps done so far.
	pub fn steps_done(&self) -> u64 {
		self.step
	}

	/// The training state, copied to host memory. Error: the device failed the copy
	/// (lost, or an earlier kernel failed).
	pub fn state(&self) -> Result<TrainState, TchError> {
		host_state(self.step, &self.spans, &self.flat, &self.opt)
	}

	/// The training state as a copy on the device, queued behind the kernels queued so
	/// far without waiting for them; calling the snapshot copies it to host memory,
	/// waiting for the device then.
	///
	/// The copy holds this step's values because both threads queue on the device's
	/// default stream (neither sets a stream of its own), and the copy out blocks until
	/// done, so the snapshot's device memory is free to reuse when it is dropped. Error:
	/// the device is out of memory (or failed earlier).
	pub fn snapshot(&self) -> Result<crate::train::Snapshot, String> {
		let copy = |t: &Tensor| -> Result<Tensor, TchError> {
			let mut c = t.f_empty_like()?;
			c.f_copy_(t)?;
			Ok(c)
		};
		let taken = tch::no_grad(|| {
			Ok::<_, TchError>((
				copy(&self.flat)?,
				self.opt.iter().map(copy).collect::<Result<Vec<_>, _>>()?,
			))
		});
		let (flat, opt) =
			taken.map_err(|e| format!("snapshot of step {}: {}", self.step, describe(&e)))?;
		let (step, spans) = (self.step, self.spans.clone());
		Ok(Box::new(move || {
			host_state(step, &spans, &flat, &opt)
				.map_err(|e| format!("checkpoint of step {step}: {}", describe(&e)))
		}))
	}

	/// Share of `data`'s samples whose largest logit is their label. Error: the device
	/// failed (cannot hold the data set, say).
	pub fn accuracy(&self, data: &Dataset) -> Result<f64, TchError> {
		if data.is_empty() {
			return Ok(0.0);
		}
		let (x, y) = upload(data, self.input, self.device)?;
		tch::no_grad(|| {
			let mut correct = 0;
			for (xb, yb) in x.f_split(1024, 0)?.iter().zip(y.f_split(1024, 0)?.iter()) {
				correct += self
					.forward(xb)?
					.f_argmax(-1, false)?
					.f_eq_tensor(yb)?
					.f_sum(Kind::Int64)?
					.f_int64_value(&[])?;
			}
			Ok(correct as f64 / data.len() as f64)
		})
	}
}

/// `data`'s inputs (shape `[N, C, H, W]` for `input` = `[C, H, W]`) and labels on
/// `device`.
fn upload(data: &Dataset, input: [i64; 3], device: Device) -> Result<(Tensor, Tensor), TchError> {
	let n = data.len() as i64;
	let inputs = Tensor::f_from_slice(&data.inputs)?
		.f_view([n, input[0], input[1], input[2]])?
		.f_to_device(device)?;
	let labels: Vec<i64> = data.labels.iter().map(|&l| i64::from(l)).collect();
	Ok((inputs, Tensor::f_from_slice(&labels)?.f_to_device(device)?))
}

/// The libtorch engine for `spec`'s task at `state` on `device` over `data`: a language
/// model's ([`crate::tch_lm::TchLmTrainer`]) or an image model's ([`TchTrainer`]); an
/// error as a message.
pub fn trainer(
	spec: &TaskSpec,
	state: &TrainState,
	device: Device,
	data: &Arc<Dataset>,
) -> Result<Box<dyn crate::train::Backend>, String> {
	if gensyn_repops::transformer::task::config(spec).is_some() {
		let lm = crate::tch_lm::TchLmTrainer::new(spec, state, device, data.clone())?;
		return Ok(Box::new(lm));
	}
	Ok(Box::new(TchTrainer::with_data(spec, state, device, data)?))
}

impl crate::train::Backend for TchTrainer {
	fn name(&self) -> &'static str {
		"tch"
	}

	fn step(&mut self, batch: &[u32]) -> Result<(), String> {
		let step = self.step;
		let loss = TchTrainer::step(self, batch)
			.map_err(|e| format!("tch step {step}: {}", describe(&e)))?;
		self.last_loss = Some(loss);
		Ok(())
	}

	fn last_loss(&self) -> f32 {
		self.last_loss
			.as_ref()
			.and_then(|l| l.f_double_value(&[]).ok())
			.map_or(f32::NAN, |l| l as f32)
	}

	fn state(&self) -> Result<TrainState, String> {
		TchTrainer::state(self)
			.map_err(|e| format!("state of step {}: {}", self.step, describe(&e)))
	}

	fn steps_done(&self) -> u64 {
		self.step
	}

	fn snapshot(&self) -> Result<crate::train::Snapshot, String> {
		TchTrainer::snapshot(self)
	}
}
