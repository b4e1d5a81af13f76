// Shared helpers for the polkadot.js scripts: arguments, connecting, accounts, amounts,
// sending an extrinsic to finality, naming dispatch errors, holds, and reading a task
// spec written in the project's serde JSON form.
import fs from 'node:fs';
import { ApiPromise, WsProvider } from '@polkadot/api';
import { Keyring } from '@polkadot/keyring';
import { cryptoWaitReady, encodeAddress } from '@polkadot/util-crypto';

/** Parses `--name value` pairs (and `--flag` for names in `flags`) into an object. */
export function parseArgs(argv, defaults, flags = []) {
  const out = { ...defaults };
  for (const f of flags) out[f] = false;
  for (let i = 0; i < argv.length; i += 1) {
    const key = argv[i];
    if (!key.startsWith('--')) throw new Error(`unexpected argument '${key}'`);
    const name = key.slice(2);
    if (flags.includes(name)) {
      out[name] = true;
      continue;
    }
    if (!(name in defaults)) {
      const known = [...Object.keys(defaults), ...flags].map((k) => `--${k}`).join(' ');
      throw new Error(`unknown option --${name}; known: ${known}`);
    }
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

/** An sr25519 key pair from a dev seed (`//Alice`) or a secret phrase. */
export async function signerFrom(api, seed) {
  await cryptoWaitReady();
  const keyring = new Keyring({ type: 'sr25519', ss58Format: api.registry.chainSS58 ?? 42 });
  return keyring.addFromUri(seed);
}

/** The protocol's pot accounts by name: `modl` + the runtime's 8-byte pallet id, zero-padded. */
const POTS = { jackpot: 'gsn/jkpt', treasury: 'gsn/trsy' };

/** An address from a dev seed (`//Bob`), a pot's name (`jackpot`, `treasury`), or an SS58 address as given. */
export async function addressFrom(api, text) {
  if (text.startsWith('//')) return (await signerFrom(api, text)).address;
  const pot = POTS[text];
  if (pot) {
    const raw = new Uint8Array(32);
    raw.set(Buffer.from(`modl${pot}`, 'utf8'));
    return encodeAddress(raw, api.registry.chainSS58 ?? 42);
  }
  return text;
}

/** The chain's token decimals (12 here: one token is 10^12 planck). */
export function decimalsOf(api) {
  return api.registry.chainDecimals[0] ?? 12;
}

/** Tokens written as a decimal string ("100", "0.5") to planck, exactly. */
export function toPlanck(text, decimals) {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(String(text).trim());
  if (!m) throw new Error(`'${text}' is not an amount of tokens (e.g. 100 or 0.5)`);
  const frac = m[2] ?? '';
  if (frac.length > decimals) throw new Error(`'${text}' has more than ${decimals} decimals`);
  return BigInt(m[1] + frac.padEnd(decimals, '0'));
}

/** Planck as tokens with every significant decimal ("6.40452"). */
export function fromPlanck(planck, decimals) {
  const s = BigInt(planck).toString().padStart(decimals + 1, '0');
  const frac = s.slice(-decimals).replace(/0+$/, '');
  return frac ? `${s.slice(0, -decimals)}.${frac}` : s.slice(0, -decimals);
}

/**
 * Text as hex of its UTF-8 bytes, the unambiguous way to hand polkadot.js a `Bytes`
 * value (a plain string that looks like hex, or a Uint8Array, would be read otherwise).
 */
export function utf8Hex(text) {
  return `0x${Buffer.from(text, 'utf8').toString('hex')}`;
}

/** `pallet.ErrorName: docs` for a dispatch error (or its plain text when not a module error). */
export function describeError(api, dispatchError) {
  if (!dispatchError.isModule) return dispatchError.toString();
  const meta = api.registry.findMetaError(dispatchError.asModule);
  const docs = meta.docs.join(' ').trim();
  return `${meta.section}.${meta.name}${docs ? `: ${docs}` : ''}`;
}

/**
 * Signs and sends `tx`, then waits until its block is finalized. Resolves with the block
 * hash, the extrinsic's events and `error` (`pallet.Name: docs`, or null on success).
 * Rejects when the pool refuses the transaction or `timeoutMs` passes. `options` go to
 * `signAndSend` (an explicit `nonce`, to send several at once).
 */
export function sendAndFinalize(api, tx, signer, timeoutMs, log = console.log, options = {}) {
  return new Promise((resolve, reject) => {
    let unsub = () => {};
    const done = (fn, value) => { clearTimeout(timer); unsub(); fn(value); };
    const timer = setTimeout(() => done(reject, new Error(`not finalized within ${timeoutMs} ms`)), timeoutMs);
    tx.signAndSend(signer, options, ({ status, events, dispatchError }) => {
      if (status.isInBlock) log(`in block ${status.asInBlock.toHex()}`);
      if (status.isInvalid || status.isDropped || status.isUsurped) {
        done(reject, new Error(`transaction ${status.type}`));
      } else if (status.isFinalized) {
        const error = dispatchError ? describeError(api, dispatchError) : null;
        done(resolve, { block: status.asFinalized.toHex(), events, error });
      }
    }).then((u) => { unsub = u; }, (e) => done(reject, e));
  });
}

/** The fee the extrinsic paid, from its `TransactionFeePaid` event (0 when none). */
export function feeOf(api, events) {
  const paid = events.find(({ event }) => api.events.transactionPayment.TransactionFeePaid.is(event));
  return paid ? paid.event.data.actualFee.toBigInt() : 0n;
}

/** An event's fields by name; integers as decimal strings (exact for u128 balances). */
export function eventFields(event) {
  const { data } = event;
  return Object.fromEntries(data.names.map((name, i) => [name, data[i].toBn ? data[i].toString() : data[i].toJSON()]));
}

/** Held balances of `who` as seen through `at` (an `api.at` view), by "Pallet.Reason". */
export async function holdsOf(at, who) {
  const out = {};
  for (const { id, amount } of await at.query.balances.holds(who)) {
    const key = `${id.type}.${id.value.type}`;
    out[key] = (out[key] ?? 0n) + amount.toBigInt();
  }
  return out;
}

/** Free and reserved (all holds together) balance of `who` through `at`. */
export async function balanceOf(at, who) {
  const { data } = await at.query.system.account(who);
  return { free: data.free.toBigInt(), reserved: data.reserved.toBigInt() };
}

/** The finalized block just before `blockHash` (whose state is "before" the extrinsic). */
export async function parentOf(api, blockHash) {
  return (await api.rpc.chain.getHeader(blockHash)).parentHash.toHex();
}

// ---- Task specs: serde JSON to the chain's type --------------------------------------

/**
 * Parses JSON text, keeping integers too long for a JS number exact (a u64 seed can be):
 * integer literals of 16 digits or more become strings before parsing. Syntax errors
 * name their line and column.
 */
export function parseJson(text, what) {
  const guarded = text.replace(/"(?:[^"\\]|\\.)*"|(?<![\d.eE+-])-?\d{16,}(?![\d.eE])/g, (m) => (m.startsWith('"') ? m : `"${m}"`));
  try {
    return JSON.parse(guarded);
  } catch (e) {
    const pos = Number(/position (\d+)/.exec(e.message)?.[1]);
    if (!Number.isFinite(pos)) throw new Error(`${what}: malformed JSON: ${e.message}`);
    const before = guarded.slice(0, pos).split('\n');
    throw new Error(`${what}: malformed JSON at line ${before.length}, column ${before[before.length - 1].length + 1}: ${e.message}`);
  }
}

// Fields that serde fills in when the JSON leaves them out (`#[serde(default)]` in spec.rs).
const SERDE_DEFAULTS = { loss: 'softmax_cross_entropy', lr_schedule: { type: 'constant' } };
// Bounds of the spec's bounded lists and strings (spec.rs): SCALE metadata shows them as
// plain vectors, and a longer one would only fail as an undecodable transaction.
const MAX_ITEMS = { layers: 32 };
const MAX_URI_LEN = 256;

/** serde's `rename_all = "snake_case"` of a Rust variant name (`MaxPool2d` -> `max_pool2d`). */
function snakeCase(name) {
  return name.replace(/[A-Z]/g, (c, i) => (i ? '_' : '') + c.toLowerCase());
}

/** The IEEE-754 single-precision bits of `x` (rounded to the nearest f32, like Rust's `as f32`). */
export function f32Bits(x) {
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, x);
  return view.getUint32(0);
}

/** A JSON integer (number or exact digit string) checked against an unsigned width. */
function unsigned(value, bits, path) {
  const ok = (typeof value === 'number' && Number.isSafeInteger(value)) || (typeof value === 'string' && /^\d+$/.test(value));
  if (!ok) throw new Error(`${path}: expected an unsigned integer, got ${JSON.stringify(value)}`);
  const n = BigInt(value);
  if (n < 0n || n >= 1n << BigInt(bits)) throw new Error(`${path}: ${value} does not fit in u${bits}`);
  return bits > 32 ? n : Number(n);
}

// Leaf types of the spec whose JSON form differs from their SCALE form, by Rust name.
const LEAVES = {
  // f32 as its bits: JSON a number, SCALE a u32.
  F32Bits: (v, path) => {
    if (typeof v !== 'number' && !(typeof v === 'string' && /^-?\d+$/.test(v))) throw new Error(`${path}: expected a number, got ${JSON.stringify(v)}`);
    return f32Bits(Number(v));
  },
  // blake2-256 hash: JSON 64 hex digits with or without 0x, SCALE [u8; 32].
  Hash32: (v, path) => {
    if (typeof v !== 'string' || !/^(0x)?[0-9a-fA-F]{64}$/.test(v)) throw new Error(`${path}: expected 32 bytes as 64 hex digits, got ${JSON.stringify(v)}`);
    return v.startsWith('0x') ? v : `0x${v}`;
  },
  // URI: JSON a string, SCALE its UTF-8 bytes.
  Uri: (v, path) => {
    if (typeof v !== 'string') throw new Error(`${path}: expected a string, got ${JSON.stringify(v)}`);
    if (Buffer.byteLength(v, 'utf8') > MAX_URI_LEN) throw new Error(`${path}: URI longer than ${MAX_URI_LEN} bytes`);
    return utf8Hex(v);
  },
};

/**
 * Converts `value`, a spec (or any part) in the serde JSON form of spec.rs, into
 * polkadot.js input for the metadata type `typeId`, walking the chain's own type
 * registry. Structs refuse unknown and missing fields (serde's `deny_unknown_fields`);
 * enums are a snake_case string (unit variants) or an object tagged by `type`.
 */
export function fromSerde(registry, typeId, value, path = 'spec') {
  const { def, path: rustPath } = registry.lookup.getSiType(typeId);
  const leaf = LEAVES[rustPath[rustPath.length - 1]?.toString()];
  if (leaf) return leaf(value, path);
  if (def.isComposite) {
    const fields = def.asComposite.fields;
    // A one-field tuple struct (`Permill(u32)`) reads as its field.
    if (fields.length === 1 && fields[0].name.isNone) return fromSerde(registry, fields[0].type, value, path);
    return structFields(registry, fields, value, path);
  }
  if (def.isVariant) return variant(registry, def.asVariant.variants, value, path);
  if (def.isSequence) {
    if (!Array.isArray(value)) throw new Error(`${path}: expected a list, got ${JSON.stringify(value)}`);
    const max = MAX_ITEMS[path.split('.').pop()];
    if (max !== undefined && value.length > max) throw new Error(`${path}: at most ${max} items, got ${value.length}`);
    return value.map((v, i) => fromSerde(registry, def.asSequence.type, v, `${path}[${i}]`));
  }
  if (def.isPrimitive) {
    const prim = def.asPrimitive.type;
    const m = /^U(\d+)$/.exec(prim);
    if (m) return unsigned(value, Number(m[1]), path);
    if (prim === 'Bool' && typeof value === 'boolean') return value;
    if (prim === 'Str' && typeof value === 'string') return value;
    throw new Error(`${path}: expected ${prim.toLowerCase()}, got ${JSON.stringify(value)}`);
  }
  throw new Error(`${path}: type ${def.type} is not supported in specs`);
}

/** A struct's fields in order, each converted; unknown or missing fields are errors. */
function structFields(registry, fields, value, path) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${path}: expected an object, got ${JSON.stringify(value)}`);
  const names = fields.map((f) => f.name.unwrap().toString());
  const unknown = Object.keys(value).filter((k) => !names.includes(k));
  if (unknown.length) throw new Error(`${path}: unknown field '${unknown[0]}', expected one of: ${names.join(', ')}`);
  const out = {};
  for (const [i, name] of names.entries()) {
    let v = value[name];
    if (v === undefined) v = SERDE_DEFAULTS[name];
    if (v === undefined) throw new Error(`${path}: missing field '${name}'`);
    out[name] = fromSerde(registry, fields[i].type, v, `${path}.${name}`);
  }
  return out;
}

/** An enum value: `"name"` for a unit variant, `{"type": "name", ...fields}` otherwise. */
function variant(registry, variants, value, path) {
  const tagged = value !== null && typeof value === 'object' && !Array.isArray(value);
  const name = tagged ? value.type : value;
  const names = variants.map((v) => snakeCase(v.name.toString()));
  const i = names.indexOf(name);
  if (typeof name !== 'string' || i < 0) {
    throw new Error(`${path}: unknown variant ${JSON.stringify(name ?? value)}, expected one of: ${names.join(', ')}`);
  }
  const v = variants[i];
  const key = v.name.toString();
  if (v.fields.length === 0) {
    const extra = tagged ? Object.keys(value).filter((k) => k !== 'type') : [];
    if (extra.length) throw new Error(`${path}: unknown field '${extra[0]}' in '${name}', which has none`);
    return { [key]: null };
  }
  if (!tagged) throw new Error(`${path}: '${name}' needs its fields: {"type": "${name}", ...}`);
  const { type, ...fields } = value;
  return { [key]: structFields(registry, v.fields, fields, `${path}(${name})`) };
}

/** Reads the spec file as JSON (before connecting, so a bad file fails fast). */
export function readSpecJson(path) {
  if (!path) throw new Error('--spec <file.json> is required');
  let text;
  try {
    text = fs.readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`cannot read spec ${path}: ${e.code ?? e.message}`);
  }
  return parseJson(text, path);
}

/** Converts the spec's JSON to the chain's `TaskSpec` type; throws naming the field at fault. */
export function toChainSpec(api, json) {
  // The call's one argument: its type id in the metadata registry, and that type's name.
  const { meta } = api.tx.tasks.submitTask;
  return api.createType(meta.args[0].type.toString(), fromSerde(api.registry, meta.fields[0].type, json));
}
