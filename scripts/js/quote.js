// What a task spec would cost if submitted now, priced by the chain itself (the
// `TasksApi` runtime API's quote, the code `submit_task` runs): its work estimate, the
// memory a worker must claim, its checkpoints and audits, and the escrow by part; or the
// named error the chain would refuse it with. Nothing is sent or held.
//
//   node quote.js --spec ../../examples/mnist-mlp.json [--ws ws://127.0.0.1:9944]
//
// Prints `RESULT <json>`: `ok`, and the quote's fields (amounts in planck, as decimal
// strings) or `error` (e.g. `tasks.SpecLinearInputMismatch`). Exit status 1 when the
// chain refuses the spec or cannot quote.
import {
  connect, decimalsOf, describeError, fromPlanck, parseArgs, readSpecJson, toChainSpec,
} from './lib.js';

const OPTIONS = { ws: 'ws://127.0.0.1:9944', spec: '' };

async function main() {
  const args = parseArgs(process.argv.slice(2), OPTIONS);
  const json = readSpecJson(args.spec);
  const api = await connect(args.ws);
  try {
    if (!api.call?.tasksApi?.quote) throw new Error('this chain\'s runtime does not quote specs (TasksApi v2)');
    const quoted = await api.call.tasksApi.quote(toChainSpec(api, json));
    if (quoted.isErr) {
      const error = describeError(api, quoted.asErr);
      console.error(`error: ${error}`);
      console.log(`RESULT ${JSON.stringify({ ok: false, error: error.split(':')[0] })}`);
      process.exitCode = 1;
      return;
    }
    const q = quoted.asOk;
    const decimals = decimalsOf(api);
    const tokens = (v) => `${fromPlanck(v.toBigInt(), decimals)}`;
    console.log(`spec ${args.spec}: ${q.gas.toBigInt()} gas, ${q.memoryMib.toNumber()} MiB, `
      + `${q.checkpoints.toNumber()} checkpoints, ${q.audits.toNumber()} audited`);
    console.log(`escrow ${tokens(q.escrow)}: solver ${tokens(q.solverPay)}, `
      + `${q.audits.toNumber() + q.profiles.toNumber()} x ${tokens(q.segmentPay)} verification, `
      + `jackpot ${tokens(q.jackpotCut)}, treasury ${tokens(q.treasuryCut)}`);
    console.log(`bond units ${q.bondUnits.toNumber()}: the solver needs room for that many `
      + 'minimum solver bonds, and each slash in the task is multiplied by it');
    console.log(`RESULT ${JSON.stringify({
      ok: true,
      gas: q.gas.toString(),
      memoryMib: q.memoryMib.toNumber(),
      checkpoints: q.checkpoints.toNumber(),
      audits: q.audits.toNumber(),
      profiles: q.profiles.toNumber(),
      solverPay: q.solverPay.toString(),
      segmentPay: q.segmentPay.toString(),
      jackpotCut: q.jackpotCut.toString(),
      treasuryCut: q.treasuryCut.toString(),
      escrow: q.escrow.toString(),
      bondUnits: q.bondUnits.toNumber(),
    })}`);
  } finally {
    await api.disconnect();
  }
}

main().catch((e) => {
  console.error(`error: ${e.message}`);
  process.exit(1);
});
