//! What the workers read from the chain: runtime API calls and a few storage items,
//! at a given block.

use codec::Decode;
use gensyn_primitives::TaskSpec;
use gensyn_runtime::{AccountId, Balance, BlockNumber, Runtime};
use pallet_gensyn_arbitration::{ArbitrationApi, DisputeKey, GameView};
use pallet_gensyn_stake::Role;
use pallet_gensyn_tasks::{Duty, TaskId, TaskView, TasksApi};
use sc_client_api::StorageProvider;
use sp_api::ProvideRuntimeApi;
use sp_core::{storage::StorageKey, H256};
use sp_runtime::Perbill;

use crate::service::FullClient;

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

/// The forced-error commitment bound to `who` for `task`, if any.
pub fn bound_commitment(
	client: &FullClient,
	at: H256,
	who: &AccountId,
	task: TaskId,
) -> Result<Option<[u8; 32]>, String> {
	let key = pallet_gensyn_jackpot::Bindings::<Runtime>::hashed_key_for(who, task);
	let binding: Option<pallet_gensyn_jackpot::Binding> = read(client, at, key)?;
	Ok(binding.map(|b| b.commitment))
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

/// The forced-error rate in force at block `at` (a storage parameter; its default when
/// never set).
pub fn forced_error_rate(client: &FullClient, at: H256) -> Result<Perbill, String> {
	use gensyn_runtime::configs::ForcedErrorRate;
	match read::<Perbill>(client, at, ForcedErrorRate::key().to_vec())? {
		Some(rate) => Ok(rate),
		None => Ok(sp_io::TestExternalities::new_empty().execute_with(ForcedErrorRate::get)),
	}
}

fn read<T: Decode>(client: &FullClient, at: H256, key: Vec<u8>) -> Result<Option<T>, String> {
	let Some(data) = client.storage(at, &StorageKey(key)).map_err(|e| e.to_string())? else {
		return Ok(None);
	};
	T::decode(&mut &data.0[..]).map(Some).map_err(|e| format!("undecodable storage: {e}"))
}
