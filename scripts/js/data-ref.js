#!/usr/bin/env node
// Writes the `data` part of a task spec for an IDX bundle (images then labels, the
// layout of docs/data-format.md): its blake2-256 file hash, its chunk root, the sample
// count, the sample shape and the classes, the same object `gensyn-ml data-ref` prints.
//
//   node data-ref.js --file train.idx [--uri https://host/train.idx]
//
// The last line is `RESULT <json>`, the data object; a file that is not an uncompressed
// bundle is refused with the reason.
import fs from 'node:fs';
import path from 'node:path';
import { blake256, chunkRoot } from './merkle.js';
import { parseArgs } from './lib.js';

const OPTIONS = { file: '', uri: '' };
// Element type of an unsigned-byte IDX array.
const UBYTE = 0x08;

/** The unsigned-byte IDX array at `offset`: its dimensions and where its elements end. */
function idxAt(bytes, offset, what) {
  if (bytes.length < offset + 4) throw new Error(`${what}: truncated IDX head`);
  if (bytes[offset] !== 0 || bytes[offset + 1] !== 0 || bytes[offset + 2] !== UBYTE) {
    throw new Error(`${what}: not an unsigned-byte IDX array`);
  }
  const ndims = bytes[offset + 3];
  const head = offset + 4 + 4 * ndims;
  if (bytes.length < head) throw new Error(`${what}: truncated IDX dimensions`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dims = [];
  for (let i = 0; i < ndims; i += 1) dims.push(view.getUint32(offset + 4 + 4 * i, false));
  const end = head + dims.reduce((a, d) => a * d, 1);
  if (bytes.length < end) throw new Error(`${what}: ${end - head} elements announced, ${bytes.length - head} present`);
  return { dims, head, end };
}

function main() {
  const args = parseArgs(process.argv.slice(2), OPTIONS);
  if (!args.file) throw new Error('--file is required');
  const bytes = new Uint8Array(fs.readFileSync(args.file));
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) throw new Error(`${args.file}: gzip; the chain takes uncompressed bundles`);
  const images = idxAt(bytes, 0, 'images');
  if (images.dims.length !== 3) throw new Error(`images have dimensions [${images.dims}], expected [N, H, W]`);
  const labels = idxAt(bytes, images.end, 'labels');
  if (labels.dims.length !== 1 || labels.dims[0] !== images.dims[0]) {
    throw new Error(`labels have dimensions [${labels.dims}], expected [${images.dims[0]}]`);
  }
  if (labels.end !== bytes.length) throw new Error(`${bytes.length - labels.end} bytes after the labels`);
  let classes = 0;
  for (let i = labels.head; i < labels.end; i += 1) classes = Math.max(classes, bytes[i] + 1);
  const hex = (b) => `0x${Buffer.from(b).toString('hex')}`;
  const data = {
    uri: args.uri || `file://${path.resolve(args.file)}`,
    file_hash: hex(blake256(bytes)),
    chunk_root: hex(chunkRoot(bytes)),
    format: 'mnist_idx',
    samples: images.dims[0],
    input: { channels: 1, height: images.dims[1], width: images.dims[2] },
    classes,
  };
  console.log(`${data.samples} samples of 1x${data.input.height}x${data.input.width}, ${classes} classes, ${bytes.length} bytes`);
  console.log(`RESULT ${JSON.stringify(data)}`);
}

try {
  main();
} catch (e) {
  console.error(`error: ${e.message}`);
  process.exit(1);
}
