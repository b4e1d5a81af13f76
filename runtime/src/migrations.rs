//! Migrations of storage that no pallet of this repository owns.

use crate::{
	configs::{dynamic_params, RuntimeParameters},
	Runtime,
};
use alloc::vec::Vec;
use frame_support::{
	storage::unhashed,
	traits::{dynamic_params::AggregatedKeyValue, OnRuntimeUpgrade},
	weights::Weight,
	StorageHasher, Twox128,
};
use sp_runtime::Perbill;

/// Moves the protocol parameters a chain once set by `sudo` + `system.set_storage` under
/// the well-known keys `twox_128(":ChallengePeriod:")`, `":MinTrainingPeriod:"`,
/// `":RandomnessDelay:"` (u32 blocks) and `":ForcedErrorRate:"` (Perbill) into the
/// parameters pallet, and clears those keys: the values a chain chose survive the
/// upgrade, and from then on change only through `parameters.set_parameter`, with an
/// event. A key that was never set stays unset (its default applies). Runs at every
/// upgrade, as a no-op once the keys are gone.
pub struct WellKnownKeysToParameters;

impl WellKnownKeysToParameters {
	/// The old key of a parameter.
	pub fn key(name: &str) -> [u8; 16] {
		Twox128::hash(name.as_bytes())
	}
}

impl OnRuntimeUpgrade for WellKnownKeysToParameters {
	fn on_runtime_upgrade() -> Weight {
		use dynamic_params::{jackpot, tasks};
		let mut moved = 0u64;
		let mut store = |p: RuntimeParameters| {
			let (key, value) = p.into_parts();
			if let Some(value) = value {
				pallet_parameters::Parameters::<Runtime>::insert(key, value);
				moved += 1;
			}
		};
		let blocks = |name: &str| unhashed::take::<u32>(&Self::key(name));
		if let Some(v) = blocks(":ChallengePeriod:") {
			store(RuntimeParameters::Tasks(tasks::Parameters::ChallengePeriod(
				tasks::ChallengePeriod,
				Some(v),
			)));
		}
		if let Some(v) = blocks(":MinTrainingPeriod:") {
			store(RuntimeParameters::Tasks(tasks::Parameters::MinTrainingPeriod(
				tasks::MinTrainingPeriod,
				Some(v),
			)));
		}
		if let Some(v) = blocks(":RandomnessDelay:") {
			store(RuntimeParameters::Tasks(tasks::Parameters::RandomnessDelay(
				tasks::RandomnessDelay,
				Some(v),
			)));
		}
		if let Some(v) = unhashed::take::<Perbill>(&Self::key(":ForcedErrorRate:")) {
			store(RuntimeParameters::Jackpot(jackpot::Parameters::ForcedErrorRate(
				jackpot::ForcedErrorRate,
				Some(v),
			)));
		}
		if moved > 0 {
			log::info!(target: "runtime", "moved {moved} protocol parameters to pallet-parameters");
		}
		// Each old key read and cleared; each value moved written once.
		<Runtime as frame_system::Config>::DbWeight::get().reads_writes(4, 4 + moved)
	}
}

/// Clears the threshold bounds per model family (codec indices 3 to 6 of the tasks
/// parameters), which measured distance on an absolute scale: distances are relative
/// since, and the bounds that replace them (`MinThreshold`, `MaxThreshold`) have keys of
/// their own, so no value set on the old scale is read on the new. Runs at every
/// upgrade, as a no-op once the keys are gone.
pub struct RetiredThresholdBounds;

impl RetiredThresholdBounds {
	/// The tasks parameters' codec indices that were retired.
	pub const RETIRED: [u8; 4] = [3, 4, 5, 6];

	/// The storage key of the tasks parameter at codec index `index` (its key encodes as
	/// the group's index, 0, then its own).
	pub fn key(index: u8) -> Vec<u8> {
		use frame_support::{storage::StoragePrefixedMap, Blake2_128Concat};
		let mut key = pallet_parameters::Parameters::<Runtime>::final_prefix().to_vec();
		key.extend(Blake2_128Concat::hash(&[0, index]));
		key
	}
}

impl OnRuntimeUpgrade for RetiredThresholdBounds {
	fn on_runtime_upgrade() -> Weight {
		let mut cleared = 0u64;
		for index in Self::RETIRED {
			let key = Self::key(index);
			if unhashed::exists(&key) {
				unhashed::kill(&key);
				cleared += 1;
			}
		}
		<Runtime as frame_system::Config>::DbWeight::get().reads_writes(4, cleared)
	}
}

#[cfg(test)]
mod tests {
	use super::*;
	use crate::{RuntimeEvent, RuntimeOrigin, System};
	use frame_support::traits::Get;
	use frame_support::{assert_noop, assert_ok};
	use sp_runtime::DispatchError;

	type TasksOf = <Runtime as pallet_gensyn_tasks::Config>::ChallengePeriod;
	type TrainingOf = <Runtime as pallet_gensyn_tasks::Config>::MinTrainingPeriod;
	type DelayOf = <Runtime as pallet_gensyn_tasks::Config>::RandomnessDelay;
	type RateOf = <Runtime as pallet_gensyn_jackpot::Config>::ForcedErrorRate;

	fn ext() -> sp_io::TestExternalities {
		let mut ext = sp_io::TestExternalities::new(Default::default());
		ext.execute_with(|| System::set_block_number(1));
		ext
	}

	/// A chain that set three of the four keys keeps those values after the upgrade,
	/// the fourth reads its default, the old keys are gone, and a second run changes
	/// nothing.
	#[test]
	fn values_set_under_the_old_keys_survive_the_upgrade() {
		ext().execute_with(|| {
			let (period, delay) = (TasksOf::get(), DelayOf::get());
			unhashed::put(&WellKnownKeysToParameters::key(":ChallengePeriod:"), &20u32);
			unhashed::put(&WellKnownKeysToParameters::key(":MinTrainingPeriod:"), &10u32);
			let rate = Perbill::from_percent(30);
			unhashed::put(&WellKnownKeysToParameters::key(":ForcedErrorRate:"), &rate);
			// Before the upgrade the new pallets no longer read the old keys.
			assert_eq!(TasksOf::get(), period);
			WellKnownKeysToParameters::on_runtime_upgrade();
			assert_eq!((TasksOf::get(), TrainingOf::get(), RateOf::get()), (20, 10, rate));
			assert_eq!(DelayOf::get(), delay, "never set: the default");
			for name in [":ChallengePeriod:", ":MinTrainingPeriod:", ":ForcedErrorRate:"] {
				assert!(!unhashed::exists(&WellKnownKeysToParameters::key(name)), "{name}");
			}
			let stored = pallet_parameters::Parameters::<Runtime>::iter().count();
			assert_eq!(stored, 3);
			WellKnownKeysToParameters::on_runtime_upgrade();
			assert_eq!(pallet_parameters::Parameters::<Runtime>::iter().count(), stored);
			assert_eq!(TasksOf::get(), 20);
		});
	}

	/// The retired bounds' values go, whatever was stored under them, and nothing else
	/// does; the keys are built as the parameters pallet builds its own.
	#[test]
	fn the_retired_threshold_bounds_are_cleared() {
		use dynamic_params::tasks;
		ext().execute_with(|| {
			let period = RuntimeParameters::Tasks(tasks::Parameters::ChallengePeriod(
				tasks::ChallengePeriod,
				Some(30),
			));
			assert_ok!(crate::Parameters::set_parameter(RuntimeOrigin::root(), period.clone()));
			let (key, _) = period.into_parts();
			let stored = pallet_parameters::Parameters::<Runtime>::hashed_key_for(key);
			assert_eq!(stored, RetiredThresholdBounds::key(0), "the parameters pallet's key");
			for index in RetiredThresholdBounds::RETIRED {
				unhashed::put(&RetiredThresholdBounds::key(index), &0x3C23_D70Au32);
			}
			RetiredThresholdBounds::on_runtime_upgrade();
			for index in RetiredThresholdBounds::RETIRED {
				assert!(!unhashed::exists(&RetiredThresholdBounds::key(index)), "{index}");
			}
			assert_eq!(TasksOf::get(), 30, "the challenge period stays");
			RetiredThresholdBounds::on_runtime_upgrade();
			assert_eq!(TasksOf::get(), 30);
		});
	}

	/// Root sets a parameter, the pallets read it at once and the change is in an
	/// event; a signed account is refused and changes nothing.
	#[test]
	fn only_root_sets_a_parameter_and_every_change_is_an_event() {
		use dynamic_params::tasks;
		ext().execute_with(|| {
			let period = TasksOf::get();
			let set = |blocks: u32| {
				RuntimeParameters::Tasks(tasks::Parameters::ChallengePeriod(
					tasks::ChallengePeriod,
					Some(blocks),
				))
			};
			let alice = sp_keyring::Sr25519Keyring::Alice.to_account_id();
			assert_noop!(
				crate::Parameters::set_parameter(RuntimeOrigin::signed(alice), set(1)),
				DispatchError::BadOrigin
			);
			assert_ok!(crate::Parameters::set_parameter(RuntimeOrigin::root(), set(30)));
			assert_eq!(TasksOf::get(), 30);
			let new_value = set(30).into_parts().1;
			let updated = System::events().into_iter().any(|r| {
				r.event
					== RuntimeEvent::Parameters(pallet_parameters::Event::Updated {
						key: set(30).into_parts().0,
						old_value: None,
						new_value: new_value.clone(),
					})
			});
			assert!(updated, "the change is in an event");
			assert_ne!(period, 30);
		});
	}
}
