#!/usr/bin/env node
// Development and test chains only: shortens the challenge window of new task verdicts
// (two hours by default) through sudo, so a task settles within minutes, and optionally
// sets the share of audited segments verifiers must get wrong on purpose (1% by default)
// so that forced errors and their jackpot payouts can be watched, and optionally the
// blocks every training deadline starts with (half an hour by default), so that a dead
// solver's task is re-drawn in minutes, and optionally the blocks a draw waits after a
// commitment (a minute by default; fewer blocks make a draw easier for one block author
// to know early, which a development chain can afford), and optionally the blocks a
// demanded checkpoint's pages are due in (two hours by default; in the second half a
// verifier may answer for the solver), so that a verifier answering for a solver whose
// node is down can be watched.
// Each is a protocol parameter that root sets with `parameters.setParameter` (one sudo
// call each, sent together), which emits `parameters.Updated`.
//
//   node dev-timing.js [--ws ws://127.0.0.1:9944] [--seed //Alice] [--challenge-period 10]
//                      [--forced-error-rate PERCENT] [--min-training-period BLOCKS]
//                      [--randomness-delay BLOCKS] [--publish-period BLOCKS]
//
// Periods are in blocks (3 s each). The last line is `RESULT <json>`.
import { connect, parseArgs, sendAndFinalize, signerFrom } from './lib.js';

const OPTIONS = {
  ws: 'ws://127.0.0.1:9944', seed: '//Alice', 'challenge-period': '10', timeout: '120000',
  'forced-error-rate': '', 'min-training-period': '', 'randomness-delay': '',
  'publish-period': '',
};

async function main() {
  const args = parseArgs(process.argv.slice(2), OPTIONS);
  const blocks = args['challenge-period'];
  // The chain reads a challenge period below 9 blocks as 9: reveals open in a window's
  // last third, at least 3 blocks before it ends, after 6 for the watcher to replay.
  if (!/^\d+$/.test(blocks) || Number(blocks) < 9 || Number(blocks) > 0xffffffff) {
    throw new Error(`--challenge-period must be a whole number of blocks from 9, got '${blocks}'`);
  }
  // Each parameter as `{ Pallet: { Name: [key, value] } }` (the key is a unit struct).
  const items = [{ Tasks: { ChallengePeriod: [null, Number(blocks)] } }];
  const training = args['min-training-period'];
  if (training !== '') {
    // The chain reads it within 10 blocks and a day.
    if (!/^\d+$/.test(training) || Number(training) < 10 || Number(training) > 28800) {
      throw new Error(`--min-training-period must be a whole number of blocks from 10 to 28800, got '${training}'`);
    }
    items.push({ Tasks: { MinTrainingPeriod: [null, Number(training)] } });
  }
  const delay = args['randomness-delay'];
  if (delay !== '') {
    // The chain reads it within 2 blocks and an hour.
    if (!/^\d+$/.test(delay) || Number(delay) < 2 || Number(delay) > 1200) {
      throw new Error(`--randomness-delay must be a whole number of blocks from 2 to 1200, got '${delay}'`);
    }
    items.push({ Tasks: { RandomnessDelay: [null, Number(delay)] } });
  }
  const publish = args['publish-period'];
  if (publish !== '') {
    // The chain reads it within 20 blocks and a day.
    if (!/^\d+$/.test(publish) || Number(publish) < 20 || Number(publish) > 28800) {
      throw new Error(`--publish-period must be a whole number of blocks from 20 to 28800, got '${publish}'`);
    }
    items.push({ Tasks: { PublishPeriod: [null, Number(publish)] } });
  }
  const rate = args['forced-error-rate'];
  if (rate !== '') {
    const percent = Number(rate);
    if (!/^\d+(\.\d+)?$/.test(rate) || percent > 100) {
      throw new Error(`--forced-error-rate must be a percentage from 0 to 100, got '${rate}'`);
    }
    // Perbill: parts per billion.
    items.push({ Jackpot: { ForcedErrorRate: [null, Math.round(percent * 1e7)] } });
  }
  const api = await connect(args.ws);
  const signer = await signerFrom(api, args.seed);
  // One sudo call per parameter, with consecutive nonces, so that they share a block.
  const first = (await api.rpc.system.accountNextIndex(signer.address)).toNumber();
  const sent = await Promise.all(items.map((item, i) => sendAndFinalize(
    api, api.tx.sudo.sudo(api.tx.parameters.setParameter(item)), signer,
    Number(args.timeout), () => {}, { nonce: first + i },
  )));
  for (const [i, s] of sent.entries()) {
    if (s.error) throw new Error(s.error);
    // sudo reports the inner call's failure in an event, not as the extrinsic's error.
    const sudid = s.events.find(({ event }) => api.events.sudo.Sudid.is(event));
    const inner = sudid?.event.data[0];
    if (!inner || inner.isErr) {
      throw new Error(`sudo refused ${JSON.stringify(items[i])}: ${inner ? inner.asErr.toString() : 'no Sudid event'}`);
    }
    if (!s.events.some(({ event }) => api.events.parameters.Updated.is(event))) {
      throw new Error(`no parameters.Updated for ${JSON.stringify(items[i])}`);
    }
  }
  console.log(`challenge period set to ${blocks} blocks`);
  if (rate !== '') console.log(`forced-error rate set to ${rate}%`);
  if (training !== '') console.log(`training deadlines start at ${training} blocks`);
  const result = { challengePeriod: Number(blocks), block: sent[sent.length - 1].block };
  if (rate !== '') result.forcedErrorRate = Number(rate);
  if (training !== '') result.minTrainingPeriod = Number(training);
  console.log(`RESULT ${JSON.stringify(result)}`);
  await api.disconnect();
}

main().catch((e) => {
  console.error(`error: ${e.message}`);
  process.exit(1);
});
