//! What the workers read from the chain: runtime API calls and a few storage items,
//! at a given block.

use codec::Decode;
use gensyn_primitives::TaskSpec;
use gensyn_runtime::{AccountId, Balance, BlockNumber, Runtime};
use pallet_gensyn_arbitration::{ArbitrationApi, DisputeKey, GameView};
use pallet_gensyn_stake::Role;
use pallet_gensyn_tasks::{Audit, Demand, Duty, TaskId, TaskView, TasksApi, WatchDraw};
use sc_client_api::StorageProvider;
use sp_api::{Core, ProvideRuntimeApi};
use sp_core::{storage::StorageKey, H256};
use sp_version::RuntimeVersion;

use crate::service::FullClient;

/// Why the workers must not act on the runtime at `at`, if they must not
/// ([`incompatibility`]).
pub fn runtime_incompatibility(client: &FullClient, at: H256) -> Result<Option<String>, String> {
	let theirs = client.runtime_api().version(at).map_err(|e| e.to_string())?;
	Ok(incompatibility(&gensyn_runtime::VERSION, &theirs))
}

/// Why a node built with runtime `ours` must not act on a chain running `theirs`, if it
/// must not. The workers decode the chain's storage and runtime API answers and encode
/// its calls with the types they were built with, so they act only on that runtime:
/// after an upgrade an old node would send calls the chain reads otherwise (and be
/// slashed for what they say), so it stops and says why instead.
pub fn incompatibility(ours: &RuntimeVersion, theirs: &RuntimeVersion) -> Option<String> {
	let update = "update gensyn-node to a build of the chain's runtime";
	if ours.spec_name != theirs.spec_name {
		return Some(format!(
			"the chain runs the `{}` runtime, not `{}`",
			theirs.spec_name, ours.spec_name
		));
	}
	if ours.spec_version != theirs.spec_version {
		return Some(format!(
			"the chain runs runtime version {} and this node was built for version {}: {update}",
			theirs.spec_version, ours.spec_version
		));
	}
	if ours.transaction_version != theirs.transaction_version {
		return Some(format!(
			"the chain encodes calls as transaction version {} and this node as {}: {update}",
			theirs.transaction_version, ours.transaction_version
		));
	}
	if ours.apis != theirs.apis {
		return Some(format!("the chain's runtime APIs are not this node's: {update}"));
	}
	None
}

/// A task as the runtime API shows it.
pub type Task = TaskView<AccountId, Balance, BlockNumber>;

/// What `who` must do at block `at`.
pub fn duties(
	client: &FullClient,
	at: H256,
	who: &AccountId,
) -> Result<Vec<Duty<BlockNumber>>, String> {
	client.runtime_api().duties(at, who.clone()).map_err(|e| e.to_string())
}

/// The number of block `at`.
pub fn number(client: &FullClient, at: H256) -> Result<BlockNumber, String> {
	use sp_blockchain::HeaderBackend;
	client
		.number(at)
		.map_err(|e| e.to_string())?
		.ok_or_else(|| format!("block {at:?} is not known"))
}

/// Task `id` at block `at`.
pub fn task(client: &FullClient, at: H256, id: TaskId) -> Result<Task, String> {
	client
		.runtime_api()
		.task(at, id)
		.map_err(|e| e.to_string())?
		.ok_or_else(|| format!("task {id} is gone"))
}

/// The task's spec, decoded.
pub fn spec(task: &Task) -> Result<TaskSpec, String> {
	TaskSpec::decode(&mut &task.spec[..]).map_err(|e| format!("undecodable spec: {e}"))
}

/// The forced-error commitment bound to `who` for `task` (with the rate it was bound
/// at), if any.
pub fn binding(
	client: &FullClient,
	at: H256,
	who: &AccountId,
	task: TaskId,
) -> Result<Option<pallet_gensyn_jackpot::Binding>, String> {
	let key = pallet_gensyn_jackpot::Bindings::<Runtime>::hashed_key_for(who, task);
	read(client, at, key)
}

/// The profile commitment `who` made for task `id` at block `at`, if any.
pub fn profile_commitment(
	client: &FullClient,
	at: H256,
	who: &AccountId,
	id: TaskId,
) -> Result<Option<[u8; 32]>, String> {
	let key = pallet_gensyn_tasks::ProfileCommitments::<Runtime>::hashed_key_for(id);
	let commitments: Option<Vec<(AccountId, [u8; 32])>> = read(client, at, key)?;
	Ok(commitments.unwrap_or_default().into_iter().find_map(|(w, c)| (w == *who).then_some(c)))
}

/// What `who` has earned in `role` so far (zero when not registered).
pub fn earned(client: &FullClient, at: H256, who: &AccountId, role: Role) -> Balance {
	let key = pallet_gensyn_stake::Bonds::<Runtime>::hashed_key_for(who, role);
	read::<pallet_gensyn_stake::RoleBondOf<Runtime>>(client, at, key)
		.ok()
		.flatten()
		.map(|b| b.earned)
		.unwrap_or_default()
}

/// The games `who` plays in at block `at`.
pub fn games(
	client: &FullClient,
	at: H256,
	who: &AccountId,
) -> Result<Vec<GameView<BlockNumber>>, String> {
	client.runtime_api().games(at, who.clone()).map_err(|e| e.to_string())
}

/// The tensor roots the defendant opened in the game `key` (empty before `open_step`).
pub fn step_roots(client: &FullClient, at: H256, key: DisputeKey) -> Result<Vec<[u8; 32]>, String> {
	let key = pallet_gensyn_arbitration::StepRoots::<Runtime>::hashed_key_for(key);
	Ok(read::<Vec<[u8; 32]>>(client, at, key)?.unwrap_or_default())
}

/// The chunk the defendant opened in the game `key` (f32 bits; empty when none).
pub fn opened_chunk(client: &FullClient, at: H256, key: DisputeKey) -> Result<Vec<u32>, String> {
	let key = pallet_gensyn_arbitration::OpenedChunks::<Runtime>::hashed_key_for(key);
	Ok(read::<Vec<u32>>(client, at, key)?.unwrap_or_default())
}

/// The watch lottery of `task`'s training round (whose winners alone may challenge a
/// failing verdict before reveals open, and earn catches), if one was drawn.
pub fn watch_draw(
	client: &FullClient,
	at: H256,
	task: TaskId,
) -> Result<Option<WatchDraw<BlockNumber>>, String> {
	read(client, at, pallet_gensyn_tasks::Watches::<Runtime>::hashed_key_for(task))
}

/// The block `who` joined `role`'s active list at (0 for one that joined before the
/// chain kept it), if it is on the list.
pub fn active_since(
	client: &FullClient,
	at: H256,
	who: &AccountId,
	role: Role,
) -> Result<Option<BlockNumber>, String> {
	let active: Vec<(AccountId, pallet_gensyn_stake::Capability, Balance)> =
		read(client, at, pallet_gensyn_stake::Active::<Runtime>::hashed_key_for(role))?
			.unwrap_or_default();
	if !active.iter().any(|(a, _, _)| a == who) {
		return Ok(None);
	}
	let joined: Vec<(AccountId, BlockNumber)> =
		read(client, at, pallet_gensyn_stake::Joined::<Runtime>::hashed_key_for(role))?
			.unwrap_or_default();
	Ok(Some(joined.iter().find(|(a, _)| a == who).map_or(0, |(_, b)| *b)))
}

/// Whether the whistleblower bond of `who` covers one more game, over `verifier`'s verdict
/// on `segment` of `task`, on top of those it has open, as the chain rules at `at` (a
/// challenge past it is refused; a verdict that survived games risks more).
pub fn covers_another_game(
	client: &FullClient,
	at: H256,
	who: &AccountId,
	(task, segment): (TaskId, u32),
	verifier: &AccountId,
) -> Result<bool, String> {
	let key = pallet_gensyn_tasks::Survived::<Runtime>::hashed_key_for(task, segment);
	let units = pallet_gensyn_tasks::Pallet::<Runtime>::units_of(read(client, at, key)?, verifier);
	let key = pallet_gensyn_tasks::OpenChallenges::<Runtime>::hashed_key_for(who);
	let open: u32 = read(client, at, key)?.unwrap_or_default();
	let key = pallet_gensyn_stake::Bonds::<Runtime>::hashed_key_for(who, Role::Whistleblower);
	let bond = read::<pallet_gensyn_stake::RoleBondOf<Runtime>>(client, at, key)?
		.map(|b| b.bond)
		.unwrap_or_default();
	Ok(pallet_gensyn_tasks::Pallet::<Runtime>::bond_covers_games(bond, open, units))
}

/// Whether the reveals of `task`'s round are open at block `at` (from then on anyone
/// may challenge a failing verdict).
pub fn reveals_open(client: &FullClient, at: H256, task: TaskId) -> Result<bool, String> {
	let key = pallet_gensyn_tasks::RevealsFrom::<Runtime>::hashed_key_for(task);
	let from: Option<BlockNumber> = read(client, at, key)?;
	Ok(from.is_some_and(|f| number(client, at).is_ok_and(|n| n >= f)))
}

/// Whether the verdict on `segment` of `task` fails, as stored at `at`.
pub fn verdict_fails(
	client: &FullClient,
	at: H256,
	task: TaskId,
	segment: u32,
) -> Result<bool, String> {
	let key = pallet_gensyn_tasks::Audits::<Runtime>::hashed_key_for(task);
	let audits: Vec<Audit<AccountId>> = read(client, at, key)?.unwrap_or_default();
	Ok(audits.iter().any(|a| a.segment == segment && a.verdict.is_some_and(|v| !v.pass)))
}

/// The checkpoints of `task`'s round demanded on chain, as stored at `at`.
pub fn demands(client: &FullClient, at: H256, task: TaskId) -> Result<Vec<Demanded>, String> {
	let key = pallet_gensyn_tasks::Demands::<Runtime>::hashed_key_for(task);
	Ok(read(client, at, key)?.unwrap_or_default())
}

/// The first blocks of the last runtime upgrades the chain keeps, oldest first, as
/// stored at `at`: a demand still due at one is due a whole period after it.
pub fn upgrades(client: &FullClient, at: H256) -> Result<Vec<BlockNumber>, String> {
	let key = pallet_gensyn_tasks::Upgrades::<Runtime>::hashed_key().to_vec();
	Ok(read(client, at, key)?.unwrap_or_default())
}

/// A checkpoint demanded on chain.
pub type Demanded = Demand<AccountId, Balance, BlockNumber>;

/// The block before which `who` reveals for `task` (the end of the first window that
/// judged its verdict), as stored at `at`.
pub fn reveal_by(
	client: &FullClient,
	at: H256,
	task: TaskId,
	who: &AccountId,
) -> Result<Option<BlockNumber>, String> {
	let key = pallet_gensyn_tasks::RevealBy::<Runtime>::hashed_key_for(task, who);
	read(client, at, key)
}

/// Whether `task`'s committed run was proven off the task, as stored at `at`.
pub fn off_task_proven(client: &FullClient, at: H256, task: TaskId) -> Result<bool, String> {
	let key = pallet_gensyn_tasks::OffTask::<Runtime>::hashed_key_for(task);
	Ok(read::<AccountId>(client, at, key)?.is_some())
}

fn read<T: Decode>(client: &FullClient, at: H256, key: Vec<u8>) -> Result<Option<T>, String> {
	let Some(data) = client.storage(at, &StorageKey(key)).map_err(|e| e.to_string())? else {
		return Ok(None);
	};
	T::decode(&mut &data.0[..]).map(Some).map_err(|e| format!("undecodable storage: {e}"))
}

#[cfg(test)]
mod tests {
	use super::incompatibility;

	#[test]
	fn workers_act_only_on_the_runtime_they_were_built_with() {
		let ours = gensyn_runtime::VERSION;
		assert_eq!(incompatibility(&ours, &ours), None);
		let mut upgraded = ours.clone();
		upgraded.spec_version += 1;
		let why = incompatibility(&ours, &upgraded).expect("a newer runtime");
		assert!(why.contains(&format!("version {}", ours.spec_version + 1)), "{why}");
		let mut calls = ours.clone();
		calls.transaction_version += 1;
		assert!(incompatibility(&ours, &calls).is_some_and(|w| w.contains("transaction version")));
		let mut apis = ours.clone();
		apis.apis = apis.apis.iter().map(|&(id, v)| (id, v + 1)).collect::<Vec<_>>().into();
		assert!(incompatibility(&ours, &apis).is_some_and(|w| w.contains("runtime APIs")));
		let mut other = ours.clone();
		other.spec_name = "another-chain".into();
		assert!(incompatibility(&ours, &other).is_some_and(|w| w.contains("another-chain")));
	}
}
