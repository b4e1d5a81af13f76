//! The verdict rule of Threshold mode, in one place for the chain and the verifiers.
//!
//! The chain stores distances and thresholds as `f32` bits, so the rule is stated on
//! `f32`: a verifier that measures its distance in `f64` rounds it to the nearest `f32`
//! ([`posted_distance`]) and judges that, so that the verdict it posts is the one the
//! chain computes from the posted bits. The distance is a share of the work the segment
//! does (`gensyn_repops::threshold::relative_distance`).

/// Whether a replay at `distance` from the solver's checkpoint passes under
/// `threshold`: the distance is finite, not negative, and at most the threshold.
pub fn threshold_passes(distance: f32, threshold: f32) -> bool {
	distance.is_finite() && distance >= 0.0 && distance <= threshold
}

/// [`threshold_passes`] on the `f32` bits the chain stores.
pub fn threshold_passes_bits(distance: u32, threshold: u32) -> bool {
	threshold_passes(f32::from_bits(distance), f32::from_bits(threshold))
}

/// The distance a verifier posts for a distance it measured in `f64`: the nearest
/// `f32` (an `f64` beyond `f32`'s range becomes infinite, which never passes).
pub fn posted_distance(distance: f64) -> f32 {
	distance as f32
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn the_rule_passes_finite_distances_up_to_the_threshold() {
		assert!(threshold_passes(0.0, 0.0));
		assert!(threshold_passes(1.0, 1.0));
		assert!(!threshold_passes(f32::from_bits(1.0f32.to_bits() + 1), 1.0));
		assert!(!threshold_passes(-0.5, 1.0));
		assert!(!threshold_passes(f32::NAN, f32::MAX));
		assert!(!threshold_passes(f32::INFINITY, f32::INFINITY));
		assert!(threshold_passes_bits(0.5f32.to_bits(), 1.0f32.to_bits()));
	}

	#[test]
	fn an_f64_distance_is_judged_as_posted() {
		// Just above 1 in f64, but it rounds to 1.0f32: the chain sees 1.0 and passes it,
		// so the verifier must too.
		let l2 = 1.0 + 1e-12;
		assert!(l2 > 1.0);
		assert!(threshold_passes(posted_distance(l2), 1.0));
		assert!(!threshold_passes(posted_distance(1e39), f32::MAX));
	}
}
