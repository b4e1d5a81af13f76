#!/usr/bin/env node
// Fetches the trained model of a task from the solver's proof store and checks it
// against what the solver committed on chain. The task's result (the store's URL
// `<endpoint>/run/<run id>`, the checkpoint Merkle root and the checkpoint count) is
// read through the `TasksApi` runtime API; the run's journal is fetched from that URL,
// its checkpoint count compared with the committed one, and the Merkle root over its
// `state_hash`es (one leaf each, initial state first; primitives/types/src/merkle.rs)
// with the committed root (and its last `state_hash` with the committed final hash);
// then the last checkpoint's blob is downloaded from `<endpoint>/blob/<name>` and its
// blake2-256 checked against its name in the journal.
//
//   node fetch-model.js --task ID [--ws ws://127.0.0.1:9944] [--at BLOCK]
//                       [--out model.safetensors] [--journal-out journal.json]
//
// What this checks: the file's hash against the journal, and the journal's leaves
// against the root on chain. Not checked here: that the safetensors file holds the state
// its `state_hash` (a Merkle root over its tensors) names; `gensyn-ml inspect
// --checkpoint FILE` prints the file's `state_hash` to compare with the RESULT's.
//
// A settled task leaves storage: read it with --at at the block of its `ResultSubmitted`
// event, or of its `TaskCompleted` event, which carries the result (`submit-task.js
// --follow` prints both). Default: the finalized head. Progress goes to stderr; stdout
// gets one `RESULT <json>` line, with `ok: false` and `error` (TaskNotFound, NoResult,
// StoreUnreachable, JournalMismatch, BlobHashMismatch, TooLarge, BadArgument, Error) on
// failure, and exit status 1.
import fs from 'node:fs';
import { connect, parseArgs } from './lib.js';
import { blake256, merkleRoot } from './merkle.js';

// Options and their defaults.
const OPTIONS = { ws: 'ws://127.0.0.1:9944', task: '', at: '', out: '', 'journal-out': '' };
// Largest journal and blob accepted (as the workers' proof_store/remote.rs).
const MAX_JOURNAL = 16 * 1024 * 1024;
const MAX_BLOB = 256 * 1024 * 1024;
// Bound on each download, in milliseconds.
const TIMEOUT_MS = 300000;

/** A refusal with the name printed as RESULT's `error`. */
class Refusal extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** A progress line (stderr, so that stdout holds only RESULT). */
const log = (line) => console.error(line);

/** Lower-case hex of bytes, with 0x. */
const hex = (bytes) => `0x${Buffer.from(bytes).toString('hex')}`;

/** 64 hex digits (an optional 0x) as 32 bytes, or null. */
function fromHex(text) {
  const m = /^(?:0x)?([0-9a-fA-F]{64})$/.exec(String(text));
  return m ? Uint8Array.from(Buffer.from(m[1], 'hex')) : null;
}

/** The task's committed result at block number `atArg` (the finalized head when empty). */
async function committedResult(api, id, atArg) {
  let hash;
  if (atArg) {
    if (!/^\d+$/.test(atArg)) throw new Refusal('BadArgument', `--at must be a block number, got '${atArg}'`);
    hash = await api.rpc.chain.getBlockHash(Number(atArg));
    if (hash.isEmpty) throw new Refusal('BadArgument', `the node knows no block #${atArg}`);
  } else {
    hash = await api.rpc.chain.getFinalizedHead();
  }
  const blockNumber = (await api.rpc.chain.getHeader(hash)).number.toNumber();
  const at = await api.at(hash);
  if (!at.call?.tasksApi?.task) throw new Error(`the runtime at block #${blockNumber} does not describe TasksApi`);
  const view = await at.call.tasksApi.task(id);
  let r;
  if (view.isNone) {
    // A task settled in this block: its TaskCompleted event carries the result.
    const completed = (await at.query.system.events()).find(({ event }) => api.events.tasks.TaskCompleted.is(event)
      && event.data.id.toNumber() === id && event.data.result?.isSome);
    if (!completed) {
      throw new Refusal('TaskNotFound', `task ${id} is not live at block #${blockNumber}; a settled task leaves storage: `
        + 'pass --at with the block of its ResultSubmitted or TaskCompleted event (submit-task.js --follow prints them)');
    }
    r = completed.event.data.result.unwrap();
  } else {
    const task = view.unwrap();
    if (task.result.isNone) {
      throw new Refusal('NoResult', `task ${id} has no result yet at block #${blockNumber} (phase ${task.phase.type})`);
    }
    r = task.result.unwrap();
  }
  return {
    blockNumber,
    url: Buffer.from(r.url.toU8a(true)).toString('utf8'),
    checkpointRoot: r.checkpointRoot.toHex(),
    finalHash: r.finalHash.toHex(),
    checkpoints: r.checkpoints.toNumber(),
  };
}

/** GETs `url`'s body; refuses an unreachable store (StoreUnreachable) or over `limit` bytes (TooLarge). */
async function getCapped(url, limit) {
  let res;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (e) {
    throw new Refusal('StoreUnreachable', `cannot reach ${url}: ${e.cause?.code ?? e.cause?.message ?? e.message}`);
  }
  if (!res.ok || !res.body) throw new Refusal('StoreUnreachable', `${url} answered HTTP ${res.status}`);
  const tooLarge = new Refusal('TooLarge', `${url} is larger than ${limit} bytes`);
  if (Number(res.headers.get('content-length')) > limit) {
    await res.body.cancel();
    throw tooLarge;
  }
  const chunks = [];
  let size = 0;
  try {
    for await (const chunk of res.body) {
      size += chunk.length;
      if (size > limit) throw tooLarge;
      chunks.push(chunk);
    }
  } catch (e) {
    throw e instanceof Refusal ? e : new Refusal('StoreUnreachable', `reading ${url} failed: ${e.message}`);
  }
  return Buffer.concat(chunks);
}

/** Parses the journal and checks its count, Merkle root and last state hash against the chain's. */
function checkJournal(body, committed) {
  const mismatch = (why) => new Refusal('JournalMismatch', `the journal at ${committed.url} ${why}`);
  let journal;
  try {
    journal = JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw mismatch(`is not JSON: ${e.message}`);
  }
  const entries = journal?.checkpoints;
  if (!Array.isArray(entries)) throw mismatch('has no checkpoint list');
  if (entries.length !== committed.checkpoints) {
    throw mismatch(`lists ${entries.length} checkpoints, ${committed.checkpoints} committed`);
  }
  if (entries.length === 0) throw mismatch('lists no checkpoint');
  const leaves = entries.map((e) => fromHex(e?.state_hash));
  const bad = leaves.indexOf(null);
  if (bad >= 0) throw mismatch(`has a checkpoint ${bad} whose state_hash is not 64 hex digits`);
  const root = hex(merkleRoot(leaves));
  if (root !== committed.checkpointRoot) throw mismatch(`has checkpoint root ${root}, ${committed.checkpointRoot} committed`);
  const last = entries[entries.length - 1];
  const lastHash = hex(leaves[leaves.length - 1]);
  if (lastHash !== committed.finalHash) throw mismatch(`ends at state ${lastHash}, final hash ${committed.finalHash} committed`);
  if (!fromHex(last.blob)) throw mismatch(`names its last blob ${JSON.stringify(last.blob)}, not 64 hex digits`);
  return journal;
}

/** The store's base URL from the result's `<base>/run/<64 hex>` (as the workers' split_run_url). */
function storeBase(url) {
  const cut = url.lastIndexOf('/run/');
  if (cut <= 0 || !/^[0-9a-fA-F]{64}$/.test(url.slice(cut + 5))) {
    throw new Refusal('StoreUnreachable', `cannot read the result's location ${JSON.stringify(url)}`);
  }
  return url.slice(0, cut);
}

async function main() {
  const args = parseArgs(process.argv.slice(2), OPTIONS);
  if (!/^\d+$/.test(args.task)) throw new Refusal('BadArgument', `--task <id> is required (a number), got '${args.task}'`);
  const id = Number(args.task);
  const out = args.out || `task-${id}-model.safetensors`;
  const api = await connect(args.ws);
  let committed;
  try {
    committed = await committedResult(api, id, args.at);
  } finally {
    await api.disconnect();
  }
  log(`task ${id} at block #${committed.blockNumber}: ${committed.checkpoints} checkpoints, `
    + `root ${committed.checkpointRoot}, store ${committed.url}`);

  const base = storeBase(committed.url);
  const body = await getCapped(committed.url, MAX_JOURNAL);
  const journal = checkJournal(body, committed);
  const last = journal.checkpoints[journal.checkpoints.length - 1];
  log(`journal: ${body.length} bytes, ${journal.checkpoints.length} checkpoints match the committed root; last step ${last.step}`);
  if (args['journal-out']) fs.writeFileSync(args['journal-out'], body);

  const name = hex(fromHex(last.blob));
  const blob = await getCapped(`${base}/blob/${name.slice(2)}`, MAX_BLOB);
  const actual = hex(blake256(blob));
  if (actual !== name) {
    throw new Refusal('BlobHashMismatch', `blob ${name} from ${base}: its ${blob.length} bytes hash to ${actual}`);
  }
  fs.writeFileSync(out, blob);
  log(`model: ${blob.length} bytes, blake2-256 matches, written to ${out}`);
  console.log(`RESULT ${JSON.stringify({
    ok: true,
    task: id,
    blockNumber: committed.blockNumber,
    out,
    bytes: blob.length,
    step: last.step,
    checkpoints: committed.checkpoints,
    checkpointRoot: committed.checkpointRoot,
    stateHash: hex(fromHex(last.state_hash)),
    blob: name,
    ...(args['journal-out'] ? { journalOut: args['journal-out'] } : {}),
  })}`);
}

main().catch((e) => {
  console.error(`error: ${e.message}`);
  console.log(`RESULT ${JSON.stringify({ ok: false, error: e instanceof Refusal ? e.code : 'Error', message: e.message })}`);
  process.exit(1);
});
