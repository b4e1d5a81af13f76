//! Submission: a spec is checked and priced, its escrow held, and a task created; and
//! its cancellation before a solver accepts.
//!
//! The escrow is the solver's pay (`PricePerMegagas` per megagas of the work estimate),
//! one verification pay (`VerifyPricePerMegagas` per megagas of one segment) for each
//! audited segment and for each profiler of a Threshold task, and the jackpot and
//! treasury cuts of the solver's pay.

use crate::*;

impl<T: Config> Pallet<T> {
	/// What `spec` costs: validated, its work estimated, its memory, checkpoints and
	/// audits counted, and its escrow priced by part (what the `TasksApi` quote shows).
	pub fn quote(spec: &TaskSpec) -> Result<Quote<BalanceOf<T>>, DispatchError> {
		let est = gensyn_primitives::estimate(spec).map_err(Self::spec_error)?;
		let memory_mib = gensyn_primitives::memory_mib(spec).map_err(Self::spec_error)?;
		ensure!(T::Arbiter::rules_on(spec), Error::<T>::SpecNotDisputable);
		// Any checkpoint may be demanded on chain, and must fit there.
		let state = gensyn_primitives::publish::state_bytes(
			&gensyn_primitives::publish::tensor_lengths(spec),
		);
		ensure!(state <= T::MaxPublishBytes::get(), Error::<T>::SpecStateTooLarge);
		let steps = est.steps;
		let k = u64::from(spec.training.checkpoint_interval.max(1));
		let segments = steps.div_ceil(k);
		let checkpoints: u32 =
			segments.saturating_add(1).try_into().map_err(|_| Error::<T>::SpecTooManySteps)?;
		let segments = checkpoints.saturating_sub(1);
		let fraction = u64::from(spec.verification.audit_fraction.0);
		let wanted = u64::from(segments).saturating_mul(fraction).div_ceil(1_000_000).max(1);
		let audits = (wanted.min(u64::from(T::MaxAuditSegments::get())) as u32).min(segments);
		let segment_gas = est.per_step.saturating_mul(k.min(steps));
		let solver_pay = Self::price(est.total, T::PricePerMegagas::get())?;
		let segment_pay = Self::price(segment_gas, T::VerifyPricePerMegagas::get())?;
		let jackpot_cut = T::JackpotCut::get() * solver_pay;
		let treasury_cut = T::TreasuryCut::get() * solver_pay;
		let threshold = spec.verification.mode == VerificationMode::Threshold;
		let profiles = if threshold && !T::ProfilePeriod::get().is_zero() { PROFILERS } else { 0 };
		let unpaid = solver_pay
			.checked_add(&jackpot_cut)
			.and_then(|v| v.checked_add(&treasury_cut))
			.ok_or(Error::<T>::EscrowOverflow)?;
		// A round, and one segment's worth of work for each profiler.
		let escrow = Self::round_price(audits, segment_pay, unpaid)
			.and_then(|round| round.checked_add(&segment_pay.checked_mul(&profiles.into())?))
			.ok_or(Error::<T>::EscrowOverflow)?;
		Ok(Quote {
			gas: est.total,
			memory_mib,
			checkpoints,
			audits,
			profiles,
			solver_pay,
			segment_pay,
			jackpot_cut,
			treasury_cut,
			escrow,
			bond_units: Self::bond_units(solver_pay),
		})
	}

	/// `submit_task`: validates and prices `spec` ([`Self::quote`]), holds the escrow and
	/// draws a solver, or (Threshold mode) schedules the profilers' draw.
	pub(crate) fn do_submit_task(owner: T::AccountId, spec: TaskSpec) -> DispatchResult {
		let q = Self::quote(&spec)?;
		let escrow = q.escrow;
		T::Currency::hold(&HoldReason::Escrow.into(), &owner, escrow)?;
		let id = NextTaskId::<T>::get();
		NextTaskId::<T>::put(id.saturating_add(1));
		let now = frame_system::Pallet::<T>::block_number();
		let mut task = Task::<T> {
			owner: owner.clone(),
			escrow,
			solver_pay: q.solver_pay,
			segment_pay: q.segment_pay,
			jackpot_cut: q.jackpot_cut,
			treasury_cut: q.treasury_cut,
			gas: q.gas,
			memory_mib: q.memory_mib,
			checkpoints: q.checkpoints,
			audits: q.audits,
			phase: Phase::Queued,
			deadline: now,
			draws: 0,
			solver: None,
			excluded: Default::default(),
			rounds: 1,
			order_randomness: [0; 32],
			result: None,
			window_end: now,
			engaged: BoundedVec::default(),
			profilers: Default::default(),
			threshold: None,
		};
		Specs::<T>::insert(id, spec);
		let units = q.bond_units;
		if units > 1 {
			BondUnits::<T>::insert(id, units);
		}
		Self::deposit_event(Event::TaskSubmitted { id, owner, escrow, gas: q.gas });
		let alive = if q.profiles > 0 {
			// Profilers are drawn `RandomnessDelay` blocks later, from randomness the
			// submitter does not know now: drawn at once, from a beacon it knows, a
			// submitter could cancel and resubmit until its partners held the seats that
			// decide the threshold.
			let delay = Self::randomness_delay();
			task.phase = Phase::Profiling;
			task.deadline = Self::schedule(id, now.saturating_add(delay));
			true
		} else {
			Self::draw_solver(id, &mut task, now)?
		};
		if alive {
			Tasks::<T>::insert(id, task);
		}
		Ok(())
	}

	/// `cancel_task`: refunds a task no solver has accepted yet, in full but for the
	/// profiles already revealed, which are paid (their work stands). Not while a drawn
	/// profiler has yet to reveal or lapse, nor in the block before the profilers' draw:
	/// cancelling then would let a submitter undo, for nothing, a draw that gave its
	/// partners too few seats.
	pub(crate) fn do_cancel_task(who: T::AccountId, id: TaskId) -> DispatchResult {
		let mut task = Tasks::<T>::get(id).ok_or(Error::<T>::UnknownTask)?;
		ensure!(task.owner == who, Error::<T>::NotOwner);
		ensure!(
			matches!(
				task.phase,
				Phase::Profiling | Phase::ProfileReveal | Phase::Queued | Phase::Offered
			),
			Error::<T>::WrongPhase
		);
		if matches!(task.phase, Phase::Profiling | Phase::ProfileReveal) {
			// The author of the block before a profiler draw knows the draw: no cancel
			// there either, unless no verifier could be drawn at all.
			let now = frame_system::Pallet::<T>::block_number();
			let draw_next = task.profilers.is_empty()
				&& now.saturating_add(1u32.into()) >= task.deadline
				&& !Self::fitting(Role::Verifier, &task, |_| true).is_empty();
			let at_work = task.profilers.iter().any(|p| p.threshold.is_none());
			ensure!(!draw_next && !at_work, Error::<T>::ProfilersAtWork);
		}
		if matches!(task.phase, Phase::Profiling | Phase::ProfileReveal) {
			Self::pay_posted_profiles(id, &mut task);
		}
		let refunded = Self::release_rest(&mut task);
		Self::close(id, &mut task);
		Self::deposit_event(Event::TaskCancelled { id, refunded });
		Ok(())
	}

	/// Maps a spec error to this pallet's error of the same name.
	pub fn spec_error(e: SpecError) -> Error<T> {
		match e {
			SpecError::NoLayers => Error::<T>::SpecNoLayers,
			SpecError::TooManyLayers => Error::<T>::SpecTooManyLayers,
			SpecError::InputZero => Error::<T>::SpecInputZero,
			SpecError::InputTooLarge => Error::<T>::SpecInputTooLarge,
			SpecError::ZeroSize { .. } => Error::<T>::SpecZeroSize,
			SpecError::SizeOverBound { .. } => Error::<T>::SpecSizeOverBound,
			SpecError::LinearNeedsFlatInput { .. } => Error::<T>::SpecLinearNeedsFlatInput,
			SpecError::LinearInputMismatch { .. } => Error::<T>::SpecLinearInputMismatch,
			SpecError::NeedsImageInput { .. } => Error::<T>::SpecNeedsImageInput,
			SpecError::ConvChannelMismatch { .. } => Error::<T>::SpecConvChannelMismatch,
			SpecError::PaddingNotBelowKernel { .. } => Error::<T>::SpecPaddingNotBelowKernel,
			SpecError::KernelLargerThanInput { .. } => Error::<T>::SpecKernelLargerThanInput,
			SpecError::ActivationTooLarge { .. } => Error::<T>::SpecActivationTooLarge,
			SpecError::TooManyParameters => Error::<T>::SpecTooManyParameters,
			SpecError::NoTrainableLayer => Error::<T>::SpecNoTrainableLayer,
			SpecError::OutputNotFlat => Error::<T>::SpecOutputNotFlat,
			SpecError::OutputClassMismatch { .. } => Error::<T>::SpecOutputClassMismatch,
			SpecError::InputShapeMismatch => Error::<T>::SpecInputShapeMismatch,
			SpecError::TooFewClasses => Error::<T>::SpecTooFewClasses,
			SpecError::TooManyClasses => Error::<T>::SpecTooManyClasses,
			SpecError::SamplesZero => Error::<T>::SpecSamplesZero,
			SpecError::TooManySamples => Error::<T>::SpecTooManySamples,
			SpecError::UriEmpty => Error::<T>::SpecUriEmpty,
			SpecError::UriNotUtf8 => Error::<T>::SpecUriNotUtf8,
			SpecError::UnsupportedUriScheme => Error::<T>::SpecUnsupportedUriScheme,
			SpecError::FormatNeedsOneChannel => Error::<T>::SpecFormatNeedsOneChannel,
			SpecError::FormatTooManyClasses => Error::<T>::SpecFormatTooManyClasses,
			SpecError::EpochsZero => Error::<T>::SpecEpochsZero,
			SpecError::TooManyEpochs => Error::<T>::SpecTooManyEpochs,
			SpecError::BatchZero => Error::<T>::SpecBatchZero,
			SpecError::BatchTooLarge => Error::<T>::SpecBatchTooLarge,
			SpecError::TooManySteps => Error::<T>::SpecTooManySteps,
			SpecError::CheckpointIntervalZero => Error::<T>::SpecCheckpointIntervalZero,
			SpecError::CheckpointIntervalOverSteps => Error::<T>::SpecCheckpointIntervalOverSteps,
			SpecError::LrInvalid => Error::<T>::SpecLrInvalid,
			SpecError::MomentumInvalid => Error::<T>::SpecMomentumInvalid,
			SpecError::Beta1Invalid => Error::<T>::SpecBeta1Invalid,
			SpecError::Beta2Invalid => Error::<T>::SpecBeta2Invalid,
			SpecError::EpsInvalid => Error::<T>::SpecEpsInvalid,
			SpecError::StepEveryZero => Error::<T>::SpecStepEveryZero,
			SpecError::GammaInvalid => Error::<T>::SpecGammaInvalid,
			SpecError::CosineTotalZero => Error::<T>::SpecCosineTotalZero,
			SpecError::MinLrInvalid => Error::<T>::SpecMinLrInvalid,
			SpecError::AuditFractionZero => Error::<T>::SpecAuditFractionZero,
			SpecError::AuditFractionOverOne => Error::<T>::SpecAuditFractionOverOne,
			SpecError::EstimateOverflow => Error::<T>::SpecEstimateOverflow,
			SpecError::EmbeddingNotFirst { .. } => Error::<T>::SpecEmbeddingNotFirst,
			SpecError::EmbeddingNeedsTokenInput => Error::<T>::SpecEmbeddingNeedsTokenInput,
			SpecError::ContextTooLong => Error::<T>::SpecContextTooLong,
			SpecError::NeedsSequenceInput { .. } => Error::<T>::SpecNeedsSequenceInput,
			SpecError::HeadsNotDividingDim { .. } => Error::<T>::SpecHeadsNotDividingDim,
			SpecError::EmbeddingVocabMismatch { .. } => Error::<T>::SpecEmbeddingVocabMismatch,
			SpecError::TokenLossNeedsSequence => Error::<T>::SpecTokenLossNeedsSequence,
			SpecError::LossFormatMismatch => Error::<T>::SpecLossFormatMismatch,
			SpecError::WeightDecayInvalid => Error::<T>::SpecWeightDecayInvalid,
			SpecError::MaxGradNormInvalid => Error::<T>::SpecMaxGradNormInvalid,
		}
	}

	/// `ceil(gas / 1e6) * price_per_megagas`.
	pub(crate) fn price(gas: u64, per_mgas: BalanceOf<T>) -> Result<BalanceOf<T>, Error<T>> {
		let mgas: BalanceOf<T> = gas.div_ceil(1_000_000).saturated_into();
		mgas.checked_mul(&per_mgas).ok_or(Error::<T>::EscrowOverflow)
	}

	/// Blocks of training for `gas` at `mgas_per_sec`, with slack and the minimum.
	pub fn training_period(gas: u64, mgas_per_sec: u32) -> BlockNumberFor<T> {
		let per_block = u64::from(mgas_per_sec.max(1))
			.saturating_mul(1_000_000)
			.saturating_mul(u64::from(T::BlockSeconds::get().max(1)));
		let blocks = gas.div_ceil(per_block).saturating_mul(u64::from(T::TrainingSlack::get()));
		let blocks: BlockNumberFor<T> = blocks.saturated_into();
		T::MinTrainingPeriod::get().saturating_add(blocks).min(T::MaxTrainingPeriod::get())
	}
}
