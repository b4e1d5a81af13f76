#!/usr/bin/env node
// Lists the live tasks at the finalized head: id, owner, phase, escrow still held,
// deadline, and the solver when one is drawn. The ids come from storage (`tasks.tasks`);
// each task is then read through the `TasksApi` runtime API (`api.call.tasksApi.task`)
// when the runtime's metadata (v15 and later) describes it, else from storage.
//
//   node list-tasks.js [--ws ws://127.0.0.1:9944] [--owner //Alice or an address]
//
// The last line is `RESULT <json>` with `tasks` (each with decimal-string balances).
import { addressFrom, connect, decimalsOf, fromPlanck, parseArgs } from './lib.js';

// Options and their defaults.
const OPTIONS = { ws: 'ws://127.0.0.1:9944', owner: '' };

async function main() {
  const args = parseArgs(process.argv.slice(2), OPTIONS);
  const api = await connect(args.ws);
  const owner = args.owner ? await addressFrom(api, args.owner) : null;
  const head = await api.rpc.chain.getFinalizedHead();
  const number = (await api.rpc.chain.getHeader(head)).number.toNumber();
  const at = await api.at(head);
  const viaApi = Boolean(at.call?.tasksApi?.task);

  const tasks = [];
  for (const [key, value] of await at.query.tasks.tasks.entries()) {
    const id = key.args[0].toNumber();
    const stored = value.unwrap();
    // The runtime API's view of the task at the same block (what clients are meant to
    // read); storage when the runtime does not expose it.
    const view = viaApi ? (await at.call.tasksApi.task(id)).unwrapOr(null) : null;
    const t = view ?? stored;
    if (owner && t.owner.toString() !== owner) continue;
    tasks.push({
      id,
      owner: t.owner.toString(),
      phase: t.phase.type,
      escrow: t.escrow.toString(),
      deadline: t.deadline.toNumber(),
      solver: t.solver.isSome ? t.solver.unwrap().toString() : null,
      gas: stored.gas.toString(),
      audits: view ? view.audits.length : stored.audits.toNumber(),
    });
  }
  tasks.sort((a, b) => a.id - b.id);

  const decimals = decimalsOf(api);
  console.log(`${tasks.length} live task(s) at finalized block #${number}${owner ? ` owned by ${owner}` : ''}`);
  for (const t of tasks) {
    console.log(`  #${t.id}  ${t.phase.padEnd(9)} escrow ${fromPlanck(t.escrow, decimals).padStart(10)}  deadline #${t.deadline}  owner ${t.owner}`
      + `${t.solver ? `  solver ${t.solver}` : ''}`);
  }
  console.log(`RESULT ${JSON.stringify({ blockNumber: number, block: head.toHex(), source: viaApi ? 'storage+TasksApi' : 'storage', tasks })}`);
  await api.disconnect();
}

main().catch((e) => {
  console.error(`error: ${e.message}`);
  process.exit(1);
});
