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

fn read<T: Decode>(client: &FullClient, at: H256, key: Vec<u8>) -> Result<Option<T>, String> {
	let Some(data) = client.storage(at, &StorageKey(key)).map_err(|e| e.to_string())? else {
		return Ok(None);
	};
	T::decode(&mut &data.0[..]).map(Some).map_err(|e| format!("undecodable storage: {e}"))
}
