// Application-generated ids: UUID v7 (time-ordered, so new rows land at the end of the primary-key index).
import { randomBytes } from 'node:crypto';

let lastMs = 0;
let seq = 0;

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
  const rand = randomBytes(8);
  const hex = ms.toString(16).padStart(12, '0');
  const seqHex = (0x7000 | seq).toString(16);
  const variant = ((rand[0]! & 0x3f) | 0x80).toString(16).padStart(2, '0');
  const tail = rand.subarray(1).toString('hex').slice(0, 14);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${seqHex}-${variant}${tail.slice(0, 2)}-${tail.slice(2, 14)}`;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_RE.test(value);
}
