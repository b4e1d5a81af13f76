#!/usr/bin/env node
// Development and test chains only: shortens the challenge window of new task verdicts
// (two hours by default) through sudo, so a task settles within minutes. The runtime
// reads the window from the well-known storage key `twox_128(":ChallengePeriod:")`.
//
//   node dev-timing.js [--ws ws://127.0.0.1:9944] [--seed //Alice] [--challenge-period 10]
//
// --challenge-period is in blocks (3 s each). The last line is `RESULT <json>`.
import { xxhashAsHex } from '@polkadot/util-crypto';
import { connect, parseArgs, sendAndFinalize, signerFrom } from './lib.js';

const OPTIONS = {
  ws: 'ws://127.0.0.1:9944', seed: '//Alice', 'challenge-period': '10', timeout: '120000',
};

async function main() {
  const args = parseArgs(process.argv.slice(2), OPTIONS);
  const blocks = args['challenge-period'];
  if (!/^\d+$/.test(blocks) || Number(blocks) < 1 || Number(blocks) > 0xffffffff) {
    throw new Error(`--challenge-period must be a whole number of blocks from 1, got '${blocks}'`);
  }
  const api = await connect(args.ws);
  const signer = await signerFrom(api, args.seed);
  const key = xxhashAsHex(':ChallengePeriod:', 128);
  // SCALE u32: four bytes, little-endian.
  const le = Buffer.alloc(4);
  le.writeUInt32LE(Number(blocks));
  const value = `0x${le.toString('hex')}`;
  const tx = api.tx.sudo.sudo(api.tx.system.setStorage([[key, value]]));
  const sent = await sendAndFinalize(api, tx, signer, Number(args.timeout), () => {});
  if (sent.error) throw new Error(sent.error);
  // sudo reports the inner call's failure in an event, not as the extrinsic's error.
  const sudid = sent.events.find(({ event }) => api.events.sudo.Sudid.is(event));
  const inner = sudid?.event.data[0];
  if (!inner || inner.isErr) {
    throw new Error(`sudo refused: ${inner ? inner.asErr.toString() : 'no Sudid event'}`);
  }
  const stored = await api.rpc.state.getStorage(key, sent.block);
  if (stored.toHex() !== value) throw new Error(`stored ${stored.toHex()}, expected ${value}`);
  console.log(`challenge period set to ${blocks} blocks (${key} = ${stored.toHex()})`);
  console.log(`RESULT ${JSON.stringify({ challengePeriod: Number(blocks), block: sent.block })}`);
  await api.disconnect();
}

main().catch((e) => {
  console.error(`error: ${e.message}`);
  process.exit(1);
});
