#!/usr/bin/env node
// Registers the signer for a worker role (`stake.register`): holds a bond and publishes
// the claimed capability and the proof-store endpoint. Waits until the block is finalized.
//
//   node register.js [--ws ws://127.0.0.1:9944] [--seed //Bob] [--role solver|verifier|whistleblower]
//                    [--bond 100] [--device cpu|gpu] [--memory-mib 4096] [--mgas-per-sec 1000]
//                    [--endpoint http://127.0.0.1:8700] [--timeout 120000]
//
// --seed is a dev seed (//Bob) or a secret phrase. --bond is in tokens (1 token = 10^12
// planck; decimals allowed). The chain's minimum bonds are printed first. The last line
// is `RESULT <json>`; a refusal prints `error: stake.<Name>: <docs>` and exits with 1.
import {
  connect, decimalsOf, fromPlanck, holdsOf, parentOf, parseArgs, sendAndFinalize, signerFrom, toPlanck, utf8Hex,
} from './lib.js';

// Options and their defaults.
const OPTIONS = {
  ws: 'ws://127.0.0.1:9944',
  seed: '//Bob',
  role: 'solver',
  bond: '100',
  device: 'cpu',
  'memory-mib': '4096',
  'mgas-per-sec': '1000',
  endpoint: 'http://127.0.0.1:8700',
  timeout: '120000',
};

/** `solver` -> `Solver`: the metadata's variant name for a lower-case word. */
function variantName(word, allowed, what) {
  if (!allowed.includes(word)) throw new Error(`--${what} must be one of: ${allowed.join(', ')}`);
  return word[0].toUpperCase() + word.slice(1);
}

/** A whole number from 1 to 2^32 - 1 (what a u32 claim may be). */
function positiveU32(text, what) {
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 0xffffffff) {
    throw new Error(`--${what} must be a whole number from 1 to 4294967295, got '${text}'`);
  }
  return Number(text);
}

async function main() {
  const args = parseArgs(process.argv.slice(2), OPTIONS);
  const role = variantName(args.role, ['solver', 'verifier', 'whistleblower'], 'role');
  const capability = {
    device: variantName(args.device, ['cpu', 'gpu'], 'device'),
    memoryMib: positiveU32(args['memory-mib'], 'memory-mib'),
    mgasPerSec: positiveU32(args['mgas-per-sec'], 'mgas-per-sec'),
  };
  const api = await connect(args.ws);
  const decimals = decimalsOf(api);
  const bond = toPlanck(args.bond, decimals);
  const signer = await signerFrom(api, args.seed);
  const min = api.consts.stake[`min${role}Bond`].toBigInt();
  console.log(`registering ${signer.address} as ${role} with ${fromPlanck(bond, decimals)} tokens `
    + `(minimum ${fromPlanck(min, decimals)}); ${capability.device}, ${capability.memoryMib} MiB, `
    + `${capability.mgasPerSec} Mgas/s; proof store ${args.endpoint}`);

  const tx = api.tx.stake.register(role, bond, capability, utf8Hex(args.endpoint));
  const sent = await sendAndFinalize(api, tx, signer, Number(args.timeout));
  if (sent.error) throw new Error(sent.error);

  // The bond is held under the role's own reason, e.g. `Stake.SolverBond`.
  const reason = `Stake.${role}Bond`;
  const before = await api.at(await parentOf(api, sent.block));
  const at = await api.at(sent.block);
  const heldBefore = (await holdsOf(before, signer.address))[reason] ?? 0n;
  const heldAfter = (await holdsOf(at, signer.address))[reason] ?? 0n;
  const blockNumber = (await api.rpc.chain.getHeader(sent.block)).number.toNumber();
  const active = (await at.query.stake.active(role)).some(([who]) => who.toString() === signer.address);
  console.log(`registered in finalized block #${blockNumber} ${sent.block}; ${reason} held ${heldBefore} -> ${heldAfter}; drawable: ${active}`);
  console.log(`RESULT ${JSON.stringify({
    who: signer.address,
    role,
    bond: bond.toString(),
    heldBefore: heldBefore.toString(),
    heldAfter: heldAfter.toString(),
    active,
    block: sent.block,
    blockNumber,
  })}`);
  await api.disconnect();
}

main().catch((e) => {
  console.error(`error: ${e.message}`);
  process.exit(1);
});
