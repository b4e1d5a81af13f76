// Shared helpers for the polkadot.js scripts: argument parsing and connecting.
import { ApiPromise, WsProvider } from '@polkadot/api';

/** Parses `--name value` pairs into an object, with defaults. */
export function parseArgs(argv, defaults) {
  const out = { ...defaults };
  for (let i = 0; i < argv.length; i += 1) {
    const key = argv[i];
    if (!key.startsWith('--')) throw new Error(`unexpected argument '${key}'`);
    const name = key.slice(2);
    if (!(name in defaults)) throw new Error(`unknown option --${name}; known: ${Object.keys(defaults).map((k) => `--${k}`).join(' ')}`);
    const value = argv[i + 1];
    if (value === undefined) throw new Error(`option --${name} needs a value`);
    out[name] = value;
    i += 1;
  }
  return out;
}

/** Connects to a node, failing after `timeoutMs` instead of retrying forever. */
export async function connect(ws, timeoutMs = 30000) {
  const provider = new WsProvider(ws, 1000);
  const timer = new Promise((_, reject) => {
    setTimeout(() => reject(new Error(`could not reach a node at ${ws} within ${timeoutMs} ms`)), timeoutMs).unref();
  });
  const api = await Promise.race([ApiPromise.create({ provider, noInitWarn: true }), timer]);
  return api;
}
