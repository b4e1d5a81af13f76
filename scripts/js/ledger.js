#!/usr/bin/env node
// Where the money went between two blocks: each account's total balance (free +
// reserved) at both ends, the transaction fees it paid in between, every fee paid in
// between, and the total issuance at both ends. Tests use it to check a task's payouts
// to the planck.
//
//   node ledger.js --from 12 --to 40 --who //Alice,//Bob,5Grw... [--ws ws://127.0.0.1:9944]
//
// The last line is `RESULT <json>`: { issuanceFrom, issuanceTo, feesTotal,
// accounts: [{ who, from, to, fees }] } in --who order (amounts in planck, as strings).
import { addressFrom, balanceOf, connect, parseArgs } from './lib.js';

const OPTIONS = { ws: 'ws://127.0.0.1:9944', from: '', to: '', who: '' };

/** A block number argument. */
function blockArg(text, what) {
  if (!/^\d+$/.test(text)) throw new Error(`--${what} must be a block number, got '${text}'`);
  return Number(text);
}

async function main() {
  const args = parseArgs(process.argv.slice(2), OPTIONS);
  const from = blockArg(args.from, 'from');
  const to = blockArg(args.to, 'to');
  if (to < from) throw new Error(`--to (${to}) is before --from (${from})`);
  if (!args.who) throw new Error('--who needs at least one account');
  const api = await connect(args.ws);
  const who = await Promise.all(args.who.split(',').map((w) => addressFrom(api, w.trim())));
  const atFrom = await api.at(await api.rpc.chain.getBlockHash(from));
  const atTo = await api.at(await api.rpc.chain.getBlockHash(to));
  const total = async (at, a) => {
    const b = await balanceOf(at, a);
    return b.free + b.reserved;
  };
  const accounts = {};
  for (const a of who) accounts[a] = { from: await total(atFrom, a), to: await total(atTo, a), fees: 0n };
  let feesTotal = 0n;
  for (let n = from + 1; n <= to; n += 1) {
    const at = await api.at(await api.rpc.chain.getBlockHash(n));
    for (const { event } of await at.query.system.events()) {
      if (!api.events.transactionPayment.TransactionFeePaid.is(event)) continue;
      const [payer, fee, tip] = event.data;
      const paid = fee.toBigInt() + tip.toBigInt();
      feesTotal += paid;
      if (accounts[payer.toString()]) accounts[payer.toString()].fees += paid;
    }
  }
  const out = {
    issuanceFrom: (await atFrom.query.balances.totalIssuance()).toString(),
    issuanceTo: (await atTo.query.balances.totalIssuance()).toString(),
    feesTotal: feesTotal.toString(),
    accounts: who.map((a) => ({
      who: a, from: accounts[a].from.toString(), to: accounts[a].to.toString(), fees: accounts[a].fees.toString(),
    })),
  };
  for (const v of out.accounts) console.log(`${v.who}: ${v.from} -> ${v.to} planck, fees ${v.fees}`);
  console.log(`RESULT ${JSON.stringify(out)}`);
  await api.disconnect();
}

main().catch((e) => {
  console.error(`error: ${e.message}`);
  process.exit(1);
});
