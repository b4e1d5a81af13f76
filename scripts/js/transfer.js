#!/usr/bin/env node
// Connects to a node, prints the chain and its finalized head, then makes a signed
// transfer and waits until the block that holds it is finalized.
//
//   node transfer.js [--ws ws://127.0.0.1:9944] [--from //Alice] [--to //Bob|jackpot|ADDRESS] [--amount 1000000000000]
//
// `--to jackpot` tops up the protocol's jackpot (what caught forced errors are paid from).
//
// The last line printed is `RESULT <json>` for scripts and tests.
import { Keyring } from '@polkadot/keyring';
import { cryptoWaitReady } from '@polkadot/util-crypto';
import { addressFrom, connect, parseArgs } from './lib.js';

const args = parseArgs(process.argv.slice(2), {
  ws: 'ws://127.0.0.1:9944', from: '//Alice', to: '//Bob', amount: '1000000000000', timeout: '120000',
});

async function main() {
  await cryptoWaitReady();
  const api = await connect(args.ws);
  const keyring = new Keyring({ type: 'sr25519', ss58Format: api.registry.chainSS58 ?? 42 });
  const from = keyring.addFromUri(args.from);
  const to = await addressFrom(api, args.to);

  const [chain, version] = await Promise.all([api.rpc.system.chain(), api.rpc.system.version()]);
  const finalizedHash = await api.rpc.chain.getFinalizedHead();
  const finalized = await api.rpc.chain.getHeader(finalizedHash);
  console.log(`chain: ${chain} (node ${version})`);
  console.log(`finalized head: #${finalized.number.toNumber()} ${finalizedHash.toHex()}`);

  const freeOf = async (who) => (await api.query.system.account(who)).data.free.toBigInt();
  const fromBefore = await freeOf(from.address);
  const toBefore = await freeOf(to);
  const amount = BigInt(args.amount);
  console.log(`transferring ${amount} plancks from ${from.address} to ${to}`);

  const outcome = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('transfer not finalized in time')), Number(args.timeout));
    api.tx.balances.transferKeepAlive(to, amount)
      .signAndSend(from, ({ status, events, dispatchError }) => {
        if (status.isInBlock) console.log(`in block ${status.asInBlock.toHex()}`);
        if (status.isInvalid || status.isDropped || status.isUsurped) {
          clearTimeout(timer);
          reject(new Error(`transaction ${status.type}`));
        }
        if (status.isFinalized) {
          clearTimeout(timer);
          if (dispatchError) {
            const text = dispatchError.isModule
              ? (() => { const m = api.registry.findMetaError(dispatchError.asModule); return `${m.section}.${m.name}`; })()
              : dispatchError.toString();
            reject(new Error(`transfer failed: ${text}`));
            return;
          }
          const fee = events.find(({ event }) => api.events.transactionPayment.TransactionFeePaid.is(event));
          resolve({ block: status.asFinalized.toHex(), fee: fee ? fee.event.data[1].toBigInt() : 0n });
        }
      })
      .catch((e) => { clearTimeout(timer); reject(e); });
  });

  const blockHash = outcome.block;
  const header = await api.rpc.chain.getHeader(blockHash);
  const at = await api.at(blockHash);
  const fromAfter = (await at.query.system.account(from.address)).data.free.toBigInt();
  const toAfter = (await at.query.system.account(to)).data.free.toBigInt();
  console.log(`finalized in block #${header.number.toNumber()} ${blockHash}; fee ${outcome.fee}`);
  const result = {
    chain: chain.toString(),
    block: blockHash,
    blockNumber: header.number.toNumber(),
    amount: amount.toString(),
    fee: outcome.fee.toString(),
    fromBefore: fromBefore.toString(),
    fromAfter: fromAfter.toString(),
    toBefore: toBefore.toString(),
    toAfter: toAfter.toString(),
  };
  console.log(`RESULT ${JSON.stringify(result)}`);
  await api.disconnect();
}

main().catch((e) => {
  console.error(`error: ${e.message}`);
  process.exit(1);
});
