//! A deadline queue that is never full: what falls due at a block is filed in pages of
//! a bounded size, as many pages as it takes, and each block handles a bounded number
//! of deadlines; what a block cannot handle carries over to the next ones (late, never
//! lost). A flood of deadlines at one block so delays deadlines by a few blocks; it
//! never refuses a call nor fails a task, as a bounded list that spilled over a fixed
//! number of blocks did. The tasks and arbitration pallets keep their own storage and
//! share these rules.

use alloc::vec::Vec;
use codec::FullCodec;
use core::marker::PhantomData;
use frame_support::{
	pallet_prelude::*,
	storage::{IterableStorageMap, StorageDoubleMap, StorageMap, StorageValue},
	traits::UncheckedOnRuntimeUpgrade,
	weights::RuntimeDbWeight,
};
use sp_runtime::traits::{One, Saturating};

/// Most blocks one call to [`PagedQueue::drain`] looks through for pages (empty blocks
/// of a backlog cost a read each).
pub const MAX_SCANNED_BLOCKS: u32 = 64;

/// How much one [`PagedQueue::drain`] may do.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Budget {
	/// Live items handled (each at the handler's full weight).
	pub live: u32,
	/// Items looked at, stale ones included (a read each).
	pub seen: u32,
}

impl Budget {
	/// `live` handlings a block, and eight times as many items looked at: stale entries
	/// (their task or game moved on) do not hold up live ones for long.
	pub fn per_block(live: u32) -> Self {
		Budget { live, seen: live.saturating_mul(8) }
	}
}

/// What [`PagedQueue::drain`] did, for its weight.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Drained {
	/// Live items handled.
	pub live: u32,
	/// Items looked at.
	pub seen: u32,
	/// Pages taken.
	pub pages: u32,
	/// Blocks looked at.
	pub blocks: u32,
}

impl Drained {
	/// Whether `budget` is spent.
	fn spent(&self, budget: &Budget) -> bool {
		self.live >= budget.live || self.seen >= budget.seen
	}

	/// The storage reads and writes of the drain itself, the live items' handling
	/// excepted (the caller counts it): a page count per block looked at, a page taken
	/// (and maybe put back) per page, a read per item looked at, and the backlog marker.
	pub fn weight<W: Get<RuntimeDbWeight>>(&self) -> Weight {
		let (blocks, pages, seen) =
			(u64::from(self.blocks), u64::from(self.pages), u64::from(self.seen));
		let rw = blocks.saturating_add(pages);
		W::get().reads_writes(rw.saturating_add(seen), rw.saturating_add(1))
	}
}

/// A paged queue of `Item`s due at blocks `B`, stored in `Pages` (block, page index ->
/// page), `Counts` (block -> pages filed) and `Backlog` (the earliest block not fully
/// handled, while one lags behind).
pub struct PagedQueue<B, Item, Max, Pages, Counts, Backlog>(
	PhantomData<(B, Item, Max, Pages, Counts, Backlog)>,
);

impl<B, Item, Max, Pages, Counts, Backlog> PagedQueue<B, Item, Max, Pages, Counts, Backlog>
where
	B: FullCodec + Copy + Ord + Saturating + One,
	Item: FullCodec + Clone,
	Max: Get<u32>,
	Pages: StorageDoubleMap<B, u32, BoundedVec<Item, Max>, Query = BoundedVec<Item, Max>>,
	Counts: StorageMap<B, u32, Query = u32>,
	Backlog: StorageValue<B, Query = Option<B>>,
{
	/// Files `item` at block `at`: on the last page there, or on a new one when it is
	/// full.
	pub fn push(at: B, item: Item) {
		let n = Counts::get(at);
		if let Some(last) = n.checked_sub(1) {
			let mut page = Pages::get(at, last);
			if page.try_push(item.clone()).is_ok() {
				Pages::insert(at, last, page);
				return;
			}
		}
		let mut page = BoundedVec::<Item, Max>::new();
		// A page holds at least one item (`Max` > 0, checked by the pallets'
		// integrity tests), so nothing is dropped here.
		let _ = page.try_push(item);
		Pages::insert(at, n, page);
		Counts::insert(at, n.saturating_add(1));
	}

	/// Whether `item` is filed at block `at` (for invariant checks: reads every page).
	pub fn contains(at: B, item: &Item) -> bool
	where
		Item: PartialEq,
	{
		(0..Counts::get(at)).any(|p| Pages::get(at, p).contains(item))
	}

	/// Whether what is filed at block `at` may still be handled, at block `now`: it is
	/// in the future, or the queue lags behind from `at` or earlier.
	pub fn pending(at: B, now: B) -> bool {
		at > now || Backlog::get().is_some_and(|first| first <= at)
	}

	/// Hands the items due by `now` to `handle(filed_at, item)`, earliest block first,
	/// until `budget` is spent or [`MAX_SCANNED_BLOCKS`] blocks were looked at; what is
	/// left waits for the next call. `handle` returns whether the item was live (a stale
	/// entry, whose subject moved on, costs a read, not a handling).
	pub fn drain(now: B, budget: Budget, mut handle: impl FnMut(B, Item) -> bool) -> Drained {
		let mut done = Drained::default();
		let mut b = Backlog::get().map_or(now, |first| first.min(now));
		loop {
			done.blocks = done.blocks.saturating_add(1);
			let mut n = Counts::get(b);
			while let Some(last) = n.checked_sub(1) {
				if done.spent(&budget) {
					// The rest of `b` waits for the next block.
					Counts::insert(b, n);
					Backlog::put(b);
					return done;
				}
				let mut items = Pages::take(b, last).into_inner().into_iter();
				done.pages = done.pages.saturating_add(1);
				while !done.spent(&budget) {
					let Some(item) = items.next() else { break };
					done.seen = done.seen.saturating_add(1);
					if handle(b, item) {
						done.live = done.live.saturating_add(1);
					}
				}
				let rest: Vec<Item> = items.collect();
				if rest.is_empty() {
					n = last;
				} else {
					// What the budget did not reach goes back (at most a page of it).
					Pages::insert(b, last, BoundedVec::truncate_from(rest));
				}
			}
			Counts::remove(b);
			if b >= now {
				Backlog::kill();
				return done;
			}
			b = b.saturating_add(B::one());
			if done.blocks >= MAX_SCANNED_BLOCKS {
				Backlog::put(b);
				return done;
			}
		}
	}
}

/// A queue that a migration files old lists into: [`PagedQueue`], named by its block
/// and item types alone.
pub trait FileLists {
	/// The block type deadlines are filed at.
	type Block: FullCodec;
	/// What is filed.
	type Item: FullCodec;
	/// Files every item of `lists` (block, items) — a storage migration's step from one
	/// bounded list per block; returns the blocks and items filed, for its weight.
	fn file_lists<L: IntoIterator<Item = Self::Item>>(
		lists: impl IntoIterator<Item = (Self::Block, L)>,
	) -> (u64, u64);
}

impl<B, Item, Max, Pages, Counts, Backlog> FileLists
	for PagedQueue<B, Item, Max, Pages, Counts, Backlog>
where
	B: FullCodec + Copy + Ord + Saturating + One,
	Item: FullCodec + Clone,
	Max: Get<u32>,
	Pages: StorageDoubleMap<B, u32, BoundedVec<Item, Max>, Query = BoundedVec<Item, Max>>,
	Counts: StorageMap<B, u32, Query = u32>,
	Backlog: StorageValue<B, Query = Option<B>>,
{
	type Block = B;
	type Item = Item;

	fn file_lists<L: IntoIterator<Item = Item>>(
		lists: impl IntoIterator<Item = (B, L)>,
	) -> (u64, u64) {
		let (mut blocks, mut items) = (0u64, 0u64);
		for (at, list) in lists {
			blocks = blocks.saturating_add(1);
			for item in list {
				Self::push(at, item);
				items = items.saturating_add(1);
			}
		}
		(blocks, items)
	}
}

/// A storage migration from one bounded list per block (`Old`, lists bounded by
/// `OldMax`) to the paged queue `Queue`: each block's list becomes its first pages. The
/// tasks and arbitration pallets each name their version-0 map and their queue.
pub struct PageLists<Old, OldMax, Queue, W>(PhantomData<(Old, OldMax, Queue, W)>);

impl<Old, OldMax, Queue, W> UncheckedOnRuntimeUpgrade for PageLists<Old, OldMax, Queue, W>
where
	Queue: FileLists,
	Old: IterableStorageMap<Queue::Block, BoundedVec<Queue::Item, OldMax>>,
	OldMax: Get<u32>,
	W: Get<RuntimeDbWeight>,
{
	fn on_runtime_upgrade() -> Weight {
		// The old lists are as many as the blocks holding a live deadline (stale ones were
		// dropped as their block passed): collected before the new pages are written.
		let old: Vec<_> = Old::drain().collect();
		let (blocks, items) = Queue::file_lists(old);
		let rw = blocks.saturating_mul(2).saturating_add(items);
		W::get().reads_writes(rw, rw)
	}
}
