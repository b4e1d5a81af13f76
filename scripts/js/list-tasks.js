#!/usr/bin/env node
// Lists the live tasks at the finalized head: id, owner, phase, escrow still held,
// deadline, and the solver when one is drawn. The tasks come a page at a time from the
// `TasksApi` runtime API (`api.call.tasksApi.tasks(from, limit)`, version 6) when the
// runtime's metadata describes it; from storage (`tasks.tasks`) otherwise.
//
//   node list-tasks.js [--ws ws://127.0.0.1:9944] [--owner //Alice or an address]
//                      [--page 100]
//
// The last line is `RESULT <json>` with `tasks` (each with decimal-string balances) and
// `pages`, the runtime API calls made.
import { addressFrom, connect, decimalsOf, fromPlanck, parseArgs } from './lib.js';

// Options and their defaults.
const OPTIONS = { ws: 'ws://127.0.0.1:9944', owner: '', page: '100' };

async function main() {
  const args = parseArgs(process.argv.slice(2), OPTIONS);
  const api = await connect(args.ws);
  const owner = args.owner ? await addressFrom(api, args.owner) : null;
  const head = await api.rpc.chain.getFinalizedHead();
  const number = (await api.rpc.chain.getHeader(head)).number.toNumber();
  const at = await api.at(head);
  const page = Number(args.page);
  if (!Number.isInteger(page) || page < 1 || page > 100) {
    throw new Error(`--page must be a whole number from 1 to 100, got '${args.page}'`);
  }
  const viaApi = Boolean(at.call?.tasksApi?.tasks);

  // Each live task as `[id, view]`: the runtime API's view (what clients are meant to
  // read), else the stored task.
  const found = [];
  let pages = 0;
  if (viaApi) {
    for (let from = 0; from !== null; pages += 1) {
      const got = await at.call.tasksApi.tasks(from, page);
      for (const [id, view] of got.tasks) found.push([id.toNumber(), view]);
      from = got.next.isSome ? got.next.unwrap().toNumber() : null;
    }
  } else {
    for (const [key, value] of await at.query.tasks.tasks.entries()) {
      found.push([key.args[0].toNumber(), value.unwrap()]);
    }
  }
  const tasks = [];
  for (const [id, t] of found) {
    if (owner && t.owner.toString() !== owner) continue;
    tasks.push({
      id,
      owner: t.owner.toString(),
      phase: t.phase.type,
      escrow: t.escrow.toString(),
      deadline: t.deadline.toNumber(),
      solver: t.solver.isSome ? t.solver.unwrap().toString() : null,
      audits: viaApi ? t.audits.length : t.audits.toNumber(),
    });
  }
  tasks.sort((a, b) => a.id - b.id);

  const decimals = decimalsOf(api);
  console.log(`${tasks.length} live task(s) at finalized block #${number}${owner ? ` owned by ${owner}` : ''}`);
  for (const t of tasks) {
    console.log(`  #${t.id}  ${t.phase.padEnd(9)} escrow ${fromPlanck(t.escrow, decimals).padStart(10)}  deadline #${t.deadline}  owner ${t.owner}`
      + `${t.solver ? `  solver ${t.solver}` : ''}`);
  }
  console.log(`RESULT ${JSON.stringify({ blockNumber: number, block: head.toHex(), source: viaApi ? 'TasksApi' : 'storage', pages, tasks })}`);
  await api.disconnect();
}

main().catch((e) => {
  console.error(`error: ${e.message}`);
  process.exit(1);
});
