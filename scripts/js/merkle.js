// The binary Merkle tree of primitives/types/src/merkle.rs (docs/data-format.md), for
// clients that check a solver's commitments or commit to their data without Rust: blake2-256, inner node = hash(0x01 ++ left ++
// right), levels paired left to right with a lone last node promoted as is, and the
// root of no leaf = hash(0x02). tests/task_scripts.rs checks it against the Rust tree.
import { blake2b } from '@noble/hashes/blake2b';

// Domain tags of merkle.rs: leaf, inner node and the root of no leaf.
const LEAF_TAG = 0x00;
const NODE_TAG = 0x01;
const EMPTY_TAG = 0x02;

/** Bytes per leaf of a data file's chunk root (the last chunk may be shorter). */
export const DATA_CHUNK_SIZE = 1024;

/** blake2-256 of bytes. */
export const blake256 = (bytes) => blake2b(bytes, { dkLen: 32 });

/** An inner node: blake2-256(NODE_TAG ++ left ++ right). */
function hashNode(left, right) {
  const buf = new Uint8Array(65);
  buf[0] = NODE_TAG;
  buf.set(left, 1);
  buf.set(right, 33);
  return blake256(buf);
}

/** The Merkle root over leaf hashes (32-byte arrays). */
export function merkleRoot(leaves) {
  if (leaves.length === 0) return blake256(Uint8Array.of(EMPTY_TAG));
  let level = leaves;
  while (level.length > 1) {
    const next = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? hashNode(level[i], level[i + 1]) : level[i]);
    level = next;
  }
  return level[0];
}

/** A leaf over raw bytes: blake2-256(LEAF_TAG ++ bytes). */
function hashLeaf(bytes) {
  const buf = new Uint8Array(1 + bytes.length);
  buf[0] = LEAF_TAG;
  buf.set(bytes, 1);
  return blake256(buf);
}

/**
 * A data file's chunk root: the tree over its 1 KiB chunks, each leaf tagged. (A
 * checkpoint root instead takes the 32-byte state hashes as its leaves, untagged.)
 */
export function chunkRoot(bytes) {
  const leaves = [];
  for (let i = 0; i < bytes.length; i += DATA_CHUNK_SIZE) leaves.push(hashLeaf(bytes.subarray(i, i + DATA_CHUNK_SIZE)));
  return merkleRoot(leaves);
}
