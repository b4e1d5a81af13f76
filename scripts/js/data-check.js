// Checks a task's data reference before it is submitted, so that a task nobody could
// train never holds an escrow: the file at the spec's `data.uri` is read (streamed for
// http(s)://) and its blake2-256 hash compared with `data.file_hash`, the same check
// every worker makes before using the file.
//
// An http(s):// URI must answer; a file:// URI (or a bare path) is read where the
// client runs when the file is there, and otherwise left to the workers (who read it
// on their own machines), with a note.
import fs from 'node:fs';
import { blake2b } from '@noble/hashes/blake2b';

/** A failed data check; `code` is `DataUnreachable` or `DataHashMismatch`. */
export class DataCheckError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** Lower-case hex of bytes, with 0x. */
function hex(bytes) {
  return `0x${Buffer.from(bytes).toString('hex')}`;
}

/** Feeds the async iterable of byte chunks to blake2-256: (digest, bytes read). */
async function hashChunks(chunks) {
  const h = blake2b.create({ dkLen: 32 });
  let bytes = 0;
  for await (const chunk of chunks) {
    h.update(chunk);
    bytes += chunk.length;
  }
  return { digest: hex(h.digest()), bytes };
}

/** The file a `file://` URI or a bare path names. */
function localPath(uri) {
  return uri.startsWith('file://') ? uri.slice('file://'.length) : uri;
}

/**
 * Checks `uri` against `fileHash` (0x-hex). Resolves to `{ checked, bytes, note }`;
 * rejects with a `DataCheckError` when the data cannot be reached or differs.
 */
export async function checkData(uri, fileHash, timeoutMs = 120000) {
  const want = String(fileHash).toLowerCase();
  let got;
  if (/^https?:\/\//.test(uri)) {
    let res;
    try {
      res = await fetch(uri, { signal: AbortSignal.timeout(timeoutMs) });
    } catch (e) {
      const why = e.cause?.code ?? e.cause?.errors?.[0]?.code ?? e.cause?.message ?? e.message;
      throw new DataCheckError('DataUnreachable', `cannot reach ${uri}: ${why}`);
    }
    if (!res.ok || !res.body) {
      throw new DataCheckError('DataUnreachable', `${uri} answered HTTP ${res.status}`);
    }
    try {
      got = await hashChunks(res.body);
    } catch (e) {
      throw new DataCheckError('DataUnreachable', `reading ${uri} failed: ${e.message}`);
    }
  } else if (uri.includes('://') && !uri.startsWith('file://')) {
    throw new DataCheckError('DataUnreachable', `unsupported data URI ${uri} (file://, http:// or https://)`);
  } else {
    const path = localPath(uri);
    if (!fs.existsSync(path)) {
      return { checked: false, bytes: 0, note: `${path} is not on this machine: the workers read it on theirs` };
    }
    got = await hashChunks(fs.createReadStream(path));
  }
  if (got.digest !== want) {
    throw new DataCheckError(
      'DataHashMismatch',
      `${uri}: blake2-256 of its ${got.bytes} bytes is ${got.digest}, the spec's file_hash is ${want}`,
    );
  }
  return { checked: true, bytes: got.bytes, note: `${got.bytes} bytes, hash matches` };
}
