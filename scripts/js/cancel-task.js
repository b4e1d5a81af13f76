#!/usr/bin/env node
// Cancels a task that no solver has accepted yet (`tasks.cancel_task`); its owner gets the
// escrow back in full. Waits until the block is finalized and prints what was released.
//
//   node cancel-task.js --id 0 [--ws ws://127.0.0.1:9944] [--seed //Alice] [--timeout 120000]
//
// The last line is `RESULT <json>`; a refusal prints `error: tasks.<Name>: <docs>` and
// exits with status 1.
import {
  balanceOf, connect, decimalsOf, feeOf, fromPlanck, holdsOf, parentOf, parseArgs, sendAndFinalize, signerFrom,
} from './lib.js';

// Options and their defaults.
const OPTIONS = {
  ws: 'ws://127.0.0.1:9944', seed: '//Alice', id: '', timeout: '120000',
};
const ESCROW = 'Tasks.Escrow';

async function main() {
  const args = parseArgs(process.argv.slice(2), OPTIONS);
  if (!/^\d+$/.test(args.id)) throw new Error('--id <task id> is required (a whole number)');
  const id = Number(args.id);
  const api = await connect(args.ws);
  const signer = await signerFrom(api, args.seed);
  const sent = await sendAndFinalize(api, api.tx.tasks.cancelTask(id), signer, Number(args.timeout));
  if (sent.error) throw new Error(sent.error);

  // The state just before and just after the block that holds the cancel.
  const before = await api.at(await parentOf(api, sent.block));
  const at = await api.at(sent.block);
  const escrow = (await before.query.tasks.tasks(id)).unwrap().escrow.toBigInt();
  const heldBefore = (await holdsOf(before, signer.address))[ESCROW] ?? 0n;
  const heldAfter = (await holdsOf(at, signer.address))[ESCROW] ?? 0n;
  const blockNumber = (await api.rpc.chain.getHeader(sent.block)).number.toNumber();
  const cancelled = sent.events.some(({ event }) => api.events.tasks.TaskCancelled.is(event));
  console.log(`task ${id} cancelled in finalized block #${blockNumber} ${sent.block}`);
  console.log(`escrow ${fromPlanck(escrow, decimalsOf(api))} released: held ${heldBefore} -> ${heldAfter}`);
  console.log(`RESULT ${JSON.stringify({
    task: id,
    cancelled,
    escrow: escrow.toString(),
    heldBefore: heldBefore.toString(),
    heldAfter: heldAfter.toString(),
    freeBefore: (await balanceOf(before, signer.address)).free.toString(),
    freeAfter: (await balanceOf(at, signer.address)).free.toString(),
    fee: feeOf(api, sent.events).toString(),
    stillListed: (await at.query.tasks.tasks(id)).isSome,
    block: sent.block,
    blockNumber,
  })}`);
  await api.disconnect();
}

main().catch((e) => {
  console.error(`error: ${e.message}`);
  process.exit(1);
});
