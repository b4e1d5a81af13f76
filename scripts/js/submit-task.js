#!/usr/bin/env node
// Submits a training task from a JSON spec (the serde form of primitives/types/src/spec.rs,
// as in examples/mnist-mlp.json), waits until its block is finalized, and prints the
// task id, the escrow held and the work estimate. With --follow it then prints the
// task's events and phase changes, block by block, until the task ends.
//
//   node submit-task.js --spec ../../examples/mnist-mlp.json [--ws ws://127.0.0.1:9944]
//                       [--seed //Alice] [--follow] [--timeout MS] [--skip-data-check]
//
// Before anything is sent, the spec's data is fetched and hash-checked (data-check.js):
// an http(s):// URI that does not answer is refused as `DataUnreachable`, data whose
// blake2-256 differs from `data.file_hash` as `DataHashMismatch`; nothing is submitted
// and nothing held. --skip-data-check leaves the check to the workers.
//
// --seed is a dev seed (//Alice) or a secret phrase. --timeout bounds the whole run in
// milliseconds (default 120000; with --follow, one hour).
//
// Prints `RESULT <json>` once the submission is final (also when the chain refuses the
// spec: then `ok` is false and `error` names it, e.g. `tasks.SpecLinearInputMismatch`).
// With --follow, the last line is `OUTCOME <json>`. Exit status: 0 when the task was
// submitted (and, with --follow, completed or was cancelled), 1 on any error or a
// failed task, 124 when --timeout ran out while following.
import { checkData, DataCheckError } from './data-check.js';
import {
  balanceOf, connect, decimalsOf, eventFields, feeOf, fromPlanck, holdsOf, parentOf, parseArgs,
  readSpecJson, sendAndFinalize, signerFrom, toChainSpec,
} from './lib.js';

// Options and their defaults.
const OPTIONS = {
  ws: 'ws://127.0.0.1:9944', seed: '//Alice', spec: '', timeout: '',
};
const ESCROW = 'Tasks.Escrow';
// Events that end a task's life.
const ENDS = ['TaskCompleted', 'TaskFailed', 'TaskCancelled'];

/** The task's events in one block's event list, as `[name, data]`. */
function taskEvents(records, id) {
  return records
    .filter(({ event }) => event.section === 'tasks' && event.data.id?.toString() === String(id))
    .map(({ event }) => [event.method, eventFields(event)]);
}

/** Prints the task's events and phase changes for each finalized block after `from`. */
async function follow(api, id, from, phase, deadlineAt) {
  let next = from + 1;
  for (;;) {
    const head = (await api.rpc.chain.getHeader(await api.rpc.chain.getFinalizedHead())).number.toNumber();
    for (; next <= head; next += 1) {
      const at = await api.at(await api.rpc.chain.getBlockHash(next));
      for (const [name, data] of taskEvents(await at.query.system.events(), id)) {
        console.log(`#${next} tasks.${name} ${JSON.stringify(data)}`);
        if (ENDS.includes(name)) return { task: id, end: name, data, blockNumber: next };
      }
      const task = await at.query.tasks.tasks(id);
      if (task.isNone) return { task: id, end: 'Gone', blockNumber: next };
      const now = task.unwrap().phase.type;
      if (now !== phase) console.log(`#${next} phase ${phase} -> ${now} (deadline #${task.unwrap().deadline.toNumber()})`);
      phase = now;
    }
    if (Date.now() > deadlineAt) return null;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2), OPTIONS, ['follow', 'skip-data-check']);
  const started = Date.now();
  const timeoutMs = Number(args.timeout || (args.follow ? 3600000 : 120000));
  const json = readSpecJson(args.spec);
  if (!args['skip-data-check']) {
    const uri = String(json.data?.uri ?? '');
    try {
      const checked = await checkData(uri, json.data?.file_hash ?? '', timeoutMs);
      console.log(`data ${uri}: ${checked.note}`);
    } catch (e) {
      if (!(e instanceof DataCheckError)) throw e;
      console.error(`error: ${e.code}: ${e.message}`);
      console.log(`RESULT ${JSON.stringify({ ok: false, error: e.code, sent: false })}`);
      process.exitCode = 1;
      return;
    }
  }
  const api = await connect(args.ws);
  const spec = toChainSpec(api, json);
  const signer = await signerFrom(api, args.seed);
  const decimals = decimalsOf(api);
  const tokens = (p) => `${fromPlanck(p, decimals)} (${p} planck)`;
  console.log(`chain: ${await api.rpc.system.chain()}; submitter ${signer.address}`);
  console.log(`spec ${args.spec}: ${spec.model.layers.length} layers, ${spec.data.samples} samples, `
    + `${spec.training.epochs} epochs, ${spec.verification.mode.type} mode; ${spec.encodedLength} bytes SCALE`);

  const sent = await sendAndFinalize(api, api.tx.tasks.submitTask(spec), signer, timeoutMs);
  const at = await api.at(sent.block);
  const before = await api.at(await parentOf(api, sent.block));
  const blockNumber = (await api.rpc.chain.getHeader(sent.block)).number.toNumber();
  const held = {
    heldBefore: ((await holdsOf(before, signer.address))[ESCROW] ?? 0n).toString(),
    heldAfter: ((await holdsOf(at, signer.address))[ESCROW] ?? 0n).toString(),
    reservedBefore: (await balanceOf(before, signer.address)).reserved.toString(),
    reservedAfter: (await balanceOf(at, signer.address)).reserved.toString(),
  };
  const common = { block: sent.block, blockNumber, owner: signer.address, fee: feeOf(api, sent.events).toString(), ...held };
  console.log(`finalized in block #${blockNumber} ${sent.block}`);

  if (sent.error) {
    console.error(`error: ${sent.error}`);
    console.log(`escrow held before ${held.heldBefore}, after ${held.heldAfter}`);
    console.log(`RESULT ${JSON.stringify({ ok: false, error: sent.error.split(':')[0], ...common })}`);
    await api.disconnect();
    process.exitCode = 1;
    return;
  }

  const submitted = sent.events.find(({ event }) => api.events.tasks.TaskSubmitted.is(event)).event.data;
  const id = submitted.id.toNumber();
  const task = (await at.query.tasks.tasks(id)).unwrap();
  console.log(`task ${id}: escrow held ${tokens(submitted.escrow.toBigInt())}; estimate ${submitted.gas.toBigInt()} gas`);
  console.log(`  solver pay ${tokens(task.solverPay.toBigInt())}, ${task.audits} audited segment(s) at ${tokens(task.segmentPay.toBigInt())}, `
    + `jackpot cut ${tokens(task.jackpotCut.toBigInt())}, treasury cut ${tokens(task.treasuryCut.toBigInt())}`);
  for (const [name, data] of taskEvents(sent.events, id)) console.log(`#${blockNumber} tasks.${name} ${JSON.stringify(data)}`);
  console.log(`phase ${task.phase.type} until #${task.deadline.toNumber()}`);
  console.log(`RESULT ${JSON.stringify({
    ok: true,
    task: id,
    escrow: submitted.escrow.toString(),
    gas: submitted.gas.toString(),
    solverPay: task.solverPay.toString(),
    segmentPay: task.segmentPay.toString(),
    audits: task.audits.toNumber(),
    jackpotCut: task.jackpotCut.toString(),
    treasuryCut: task.treasuryCut.toString(),
    memoryMib: task.memoryMib.toNumber(),
    checkpoints: task.checkpoints.toNumber(),
    phase: task.phase.type,
    deadline: task.deadline.toNumber(),
    ...common,
  })}`);

  if (args.follow) {
    console.log(`following task ${id} (finalized blocks)...`);
    const outcome = await follow(api, id, blockNumber, task.phase.type, started + timeoutMs);
    if (!outcome) {
      console.error(`error: task ${id} still live after --timeout ${timeoutMs} ms`);
      process.exitCode = 124;
    } else {
      console.log(`OUTCOME ${JSON.stringify(outcome)}`);
      if (!['TaskCompleted', 'TaskCancelled'].includes(outcome.end)) process.exitCode = 1;
    }
  }
  await api.disconnect();
}

main().catch((e) => {
  console.error(`error: ${e.message}`);
  process.exit(1);
});
