//! The tasks pallet's errors, one per way a call can be refused, imported into the
//! pallet as a section.

use frame_support::pallet_macros::pallet_section;

/// The errors section of the pallet.
#[pallet_section]
mod errors {
	/// Errors.
	#[pallet::error]
	pub enum Error<T> {
		/// No such live task.
		UnknownTask,
		/// The signer is not the task's owner.
		NotOwner,
		/// The signer is not the task's solver.
		NotSolver,
		/// The signer is not the segment's verifier.
		NotVerifier,
		/// The signer is not a drawn profiler of the task still to commit (or, once
		/// reveals open, one that committed and is still to reveal).
		NotProfiler,
		/// The threshold is not a finite, non-negative number.
		InvalidThreshold,
		/// The task is not in the phase this call needs.
		WrongPhase,
		/// The result's checkpoint count differs from what the spec implies.
		WrongCheckpointCount,
		/// The proof does not show that the committed run is off the task.
		NotOffTask,
		/// The committed run was already proven off the task.
		AlreadyProvenOffTask,
		/// No audit of this segment.
		UnknownSegment,
		/// The verdict of this segment was already posted.
		AlreadyVerified,
		/// The segment has no verdict to challenge.
		NoVerdict,
		/// The verdict is already disputed.
		AlreadyDisputed,
		/// The signer may not challenge this verdict.
		NotAllowedToChallenge,
		/// The checkpoint proof does not match the result's checkpoint root.
		BadCheckpointProof,
		/// No dispute is open on this segment.
		NoDispute,
		/// The task counts on too many workers.
		TooManyEngaged,
		/// The escrow overflows the balance type.
		EscrowOverflow,
		// One error per way a spec can be wrong (`gensyn_primitives::SpecError`).
		/// Bad spec: The model has no layer.
		SpecNoLayers,
		/// Bad spec: The model has more than `MAX_LAYERS` layers.
		SpecTooManyLayers,
		/// Bad spec: A dimension of the input shape is zero.
		SpecInputZero,
		/// Bad spec: The input shape exceeds `MAX_CHANNELS` / `MAX_SPATIAL` / `MAX_ACTIVATION`.
		SpecInputTooLarge,
		/// Bad spec: A size of this layer is zero (features, channels, kernel or stride).
		SpecZeroSize,
		/// Bad spec: A size of this layer exceeds its documented bound.
		SpecSizeOverBound,
		/// Bad spec: A `Linear` layer gets an image (put a `Flatten` before it) or token ids
		/// (put an `Embedding` first).
		SpecLinearNeedsFlatInput,
		/// Bad spec: A `Linear` layer's `in_features` differs from its input's size.
		SpecLinearInputMismatch,
		/// Bad spec: A `Conv2d`, `MaxPool2d` or `Flatten` layer gets a flat input or a
		/// sequence.
		SpecNeedsImageInput,
		/// Bad spec: A `Conv2d` layer's `in_channels` differs from its input's channels.
		SpecConvChannelMismatch,
		/// Bad spec: A `Conv2d` layer's padding is not smaller than its kernel.
		SpecPaddingNotBelowKernel,
		/// Bad spec: The (padded) input of a `Conv2d` / `MaxPool2d` layer is smaller than
		/// its kernel.
		SpecKernelLargerThanInput,
		/// Bad spec: This layer's output per sample exceeds `MAX_ACTIVATION` elements.
		SpecActivationTooLarge,
		/// Bad spec: The model has more than `MAX_PARAMETERS` parameters.
		SpecTooManyParameters,
		/// Bad spec: The model has no layer with parameters.
		SpecNoTrainableLayer,
		/// Bad spec: The last layer's output is an image, not a vector of logits.
		SpecOutputNotFlat,
		/// Bad spec: The last layer's output size differs from the number of classes.
		SpecOutputClassMismatch,
		/// Bad spec: The model's input shape differs from the data's sample shape.
		SpecInputShapeMismatch,
		/// Bad spec: `data.classes` is below 2.
		SpecTooFewClasses,
		/// Bad spec: `data.classes` exceeds `MAX_CLASSES`.
		SpecTooManyClasses,
		/// Bad spec: `data.samples` is zero.
		SpecSamplesZero,
		/// Bad spec: `data.samples` exceeds `MAX_SAMPLES`.
		SpecTooManySamples,
		/// Bad spec: The data URI is empty.
		SpecUriEmpty,
		/// Bad spec: The data URI is not UTF-8.
		SpecUriNotUtf8,
		/// Bad spec: The data URI is not `file://`, `http://` or `https://`.
		SpecUnsupportedUriScheme,
		/// Bad spec: MNIST IDX and token data have one channel.
		SpecFormatNeedsOneChannel,
		/// Bad spec: MNIST IDX labels, and tokens, are bytes: at most 256 classes.
		SpecFormatTooManyClasses,
		/// Bad spec: `epochs` is zero.
		SpecEpochsZero,
		/// Bad spec: `epochs` exceeds `MAX_EPOCHS`.
		SpecTooManyEpochs,
		/// Bad spec: `batch_size` is zero.
		SpecBatchZero,
		/// Bad spec: `batch_size` exceeds `MAX_BATCH`.
		SpecBatchTooLarge,
		/// Bad spec: The run has more than `MAX_STEPS` steps.
		SpecTooManySteps,
		/// Bad spec: The checkpoint interval `k` is zero.
		SpecCheckpointIntervalZero,
		/// Bad spec: The checkpoint interval `k` exceeds the run's total steps.
		SpecCheckpointIntervalOverSteps,
		/// Bad spec: The learning rate is not finite and positive.
		SpecLrInvalid,
		/// Bad spec: SGD momentum is not in `[0, 1)`.
		SpecMomentumInvalid,
		/// Bad spec: Adam `beta1` is not in `[0, 1)`.
		SpecBeta1Invalid,
		/// Bad spec: Adam `beta2` is not in `[0, 1)`.
		SpecBeta2Invalid,
		/// Bad spec: Adam `eps` is not finite and positive.
		SpecEpsInvalid,
		/// Bad spec: A step schedule's `every_steps` is zero.
		SpecStepEveryZero,
		/// Bad spec: A step schedule's `gamma` is not in `(0, 1]`.
		SpecGammaInvalid,
		/// Bad spec: A cosine schedule's `total_steps` is zero.
		SpecCosineTotalZero,
		/// Bad spec: A cosine schedule's `min_lr` is not finite and in `[0, lr]`.
		SpecMinLrInvalid,
		/// Bad spec: The audit fraction is zero.
		SpecAuditFractionZero,
		/// Bad spec: The audit fraction exceeds 1_000_000 parts per million.
		SpecAuditFractionOverOne,
		/// Bad spec: The work estimate overflows a `u64`.
		SpecEstimateOverflow,
		/// Bad spec: The arbiter could not rule on a dispute over this task (a layer, loss
		/// or optimizer whose step it has no graph for, such as a language model's; a
		/// data format it cannot read; more samples than a game replays; or a segment too
		/// long to replay within a move deadline).
		SpecNotDisputable,
		/// The offer's accept deadline has passed (its lapse is handled, late, by a
		/// backlogged deadline queue): too late to decline.
		OfferExpired,
		/// The profiler already committed to (or revealed) its threshold for the task.
		ProfileAlreadyPosted,
		/// The segment is a revealed forced error: void and audited again, not challenged.
		ForcedErrorRevealed,
		/// Until the task's reveals open, a failing verdict is challenged only by a
		/// whistleblower whose ticket wins the round's watch lottery (it may be a forced
		/// error, whose catch is the watcher's).
		NotWatcher,
		/// A drawn profiler has yet to reveal or lapse, or the profilers are drawn in the
		/// next block: the task can be cancelled once each has revealed or lapsed (a
		/// revealed profile is then paid).
		ProfilersAtWork,
		/// The task's challenge window has ended (the games under way may still run).
		WindowClosed,
		/// The revealed threshold and salt do not hash to the profiler's commitment.
		ProfileMismatch,
		/// The act was due before the task's deadline, which has come (its lapse is
		/// handled, late, by a backlogged deadline queue, and slashed as any lapse).
		DeadlinePassed,
		/// The whistleblower's bond does not cover the false-challenge slash of one more
		/// game on top of those it has open: it may bond more, or wait until a game of its
		/// is won or voided (a lost one takes its slash from the bond).
		ChallengesExceedBond,
		/// The solver contested this verdict once already: a game ruled on it, and the
		/// solver does not try the same verdict twice.
		AlreadyContested,
		/// The checkpoint is not one a verdict of the round replayed from (in Threshold
		/// mode, or ended at), or that verdict's first challenge window has ended.
		NotDemandable,
		/// The checkpoint is already demanded in this round.
		AlreadyDemanded,
		/// The checkpoint is not demanded, or is published already.
		NotDemanded,
		/// The demanded checkpoint's pages were due before this block.
		DemandLapsed,
		/// Pages go in order: this is not the next page of the checkpoint.
		NotNextPage,
		/// The bytes are not the page the proof claims under the run's checkpoint root,
		/// or the page's length is not its own.
		PageNotProved,
		/// The model's training state is larger than a checkpoint the chain can publish
		/// ([`Config::MaxPublishBytes`]).
		SpecStateTooLarge,
		/// This account may not publish the demanded checkpoint: only the solver, and
		/// past the first half of the period one verifier that read it
		/// ([`Pallet::may_publish`]).
		NotPublisher,
		// The language model's spec errors, after the rest so that no index moves.
		/// Bad spec: An `Embedding` is not the model's first layer.
		SpecEmbeddingNotFirst,
		/// Bad spec: The input of a model that starts with an `Embedding` is not
		/// `[1, 1, t]` (`t` token ids).
		SpecEmbeddingNeedsTokenInput,
		/// Bad spec: A token input is longer than `MAX_CONTEXT` positions.
		SpecContextTooLong,
		/// Bad spec: A `DecoderBlock` or `LayerNorm` layer gets no sequence.
		SpecNeedsSequenceInput,
		/// Bad spec: A `DecoderBlock`'s heads do not divide its input's features.
		SpecHeadsNotDividingDim,
		/// Bad spec: The `Embedding`'s vocabulary differs from the data's `classes`.
		SpecEmbeddingVocabMismatch,
		/// Bad spec: The token loss needs a model whose output is a sequence of logits.
		SpecTokenLossNeedsSequence,
		/// Bad spec: The token loss and `tokens` data go together: one without the other.
		SpecLossFormatMismatch,
		/// Bad spec: AdamW's `weight_decay` is not finite and non-negative.
		SpecWeightDecayInvalid,
		/// Bad spec: AdamW's `max_grad_norm` is not finite and positive.
		SpecMaxGradNormInvalid,
	}
}
