// Application-generated ids: UUID v7 (time-ordered, so new rows land at the end of the primary-key index).
import { randomBytes } from 'node:crypto';

let lastMs = 0;
let seq = 0;
/** The timestamp part of the last id, formatted once per millisecond. */
let prefixMs = -1;
let prefix = '';

// Random bits come from a 32 KiB pool refilled in one call: a randomBytes(8) per id (a native call and a
// Buffer each) was the largest cost of generating the half-million ids of a demo-data load.
const POOL_IDS = 4096;
let pool = Buffer.alloc(0);
let poolAt = 0;
const HEX = Array.from({ length: 256 }, (_v, i) => i.toString(16).padStart(2, '0'));
/** The pool, with 8 fresh bytes at poolAt - 8. */
function randomSlice(): Buffer {
  if (poolAt >= pool.length) {
    pool = randomBytes(8 * POOL_IDS);
    poolAt = 0;
  }
  poolAt += 8;
  return pool;
}

export function uuidv7(): string {
  let ms = Date.now();
  if (ms <= lastMs) {
    // Same millisecond: bump a 12-bit counter so ids stay monotonic within one process.
    seq++;
    if (seq > 0xfff) {
      lastMs++;
      seq = 0;
    }
    ms = lastMs;
  } else {
    lastMs = ms;
    seq = 0;
  }
  // Formatted with a byte→hex table in plain JS: Buffer#toString('hex') and number formatting per id cost more
  // than the rest of the id.
  const r = randomSlice();
  if (ms !== prefixMs) {
    const hex = ms.toString(16).padStart(12, '0');
    prefix = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-`;
    prefixMs = ms;
  }
  const o = poolAt - 8;
  return `${prefix}${HEX[0x70 | (seq >> 8)]}${HEX[seq & 0xff]}-${HEX[(r[o]! & 0x3f) | 0x80]}${HEX[r[o + 1]!]}-` +
    `${HEX[r[o + 2]!]}${HEX[r[o + 3]!]}${HEX[r[o + 4]!]}${HEX[r[o + 5]!]}${HEX[r[o + 6]!]}${HEX[r[o + 7]!]}`;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_RE.test(value);
}
