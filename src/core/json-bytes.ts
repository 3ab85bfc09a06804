// An answer's JSON as UTF-8 bytes, built without one string of the whole answer.
//
// Why: a list page is 40–150 KB of JSON. As one string, it is a V8 large object (over 128 KB of heap: any page
// above that size, or above 64 K characters once one display holds a `›`, which makes the string two-byte), and each
// large object is a fresh memory mapping, faulted in page by page and unmapped again by the next collection. On the
// 2-core machine, `Buffer.from(JSON.stringify(page))` of a 100 KB device page took 1.6 ms, 0.7 ms of it in the
// kernel; one string per row, encoded in batches of rows into one buffer, takes 0.45 ms for the same bytes.

/**
 * The bytes of `JSON.stringify(data)`: an array, or an object with a `results` array (the list envelope), is
 * encoded element by element; anything else in one piece.
 */
export function jsonBytes(data: unknown): Buffer {
  if (Array.isArray(data)) return Buffer.concat(arrayParts(data));
  if (isEnvelope(data)) {
    const parts: Buffer[] = [];
    // JSON.stringify's own walk of a plain object: own enumerable keys in order, undefined and functions left out.
    for (const [key, value] of Object.entries(data)) {
      if (key === 'results') {
        parts.push(Buffer.from(`${parts.length === 0 ? '{' : ','}"results":`), ...arrayParts(data.results));
        continue;
      }
      const text = JSON.stringify(value);
      if (text !== undefined) parts.push(Buffer.from(`${parts.length === 0 ? '{' : ','}${JSON.stringify(key)}:${text}`));
    }
    parts.push(Buffer.from('}'));
    return Buffer.concat(parts);
  }
  return Buffer.from(JSON.stringify(data));
}

function isEnvelope(data: unknown): data is { results: unknown[] } {
  return (
    typeof data === 'object' &&
    data !== null &&
    Object.getPrototypeOf(data) === Object.prototype &&
    !('toJSON' in data) &&
    Array.isArray((data as { results?: unknown }).results)
  );
}

/** Characters of row JSON gathered into one string before it is encoded: far below a large object's size. */
const BATCH_CHARS = 16_384;

/**
 * An array as JSON.stringify writes it (undefined, functions and symbols as null), encoded a batch of elements at a
 * time: a Buffer per element cost a fifth more than JSON.stringify itself on a page of 1,000 tags.
 */
function arrayParts(items: unknown[]): Buffer[] {
  const out: Buffer[] = [];
  let batch = '[';
  for (let i = 0; i < items.length; i++) {
    if (i > 0) batch += ',';
    batch += JSON.stringify(items[i]) ?? 'null';
    if (batch.length >= BATCH_CHARS) {
      out.push(Buffer.from(batch));
      batch = '';
    }
  }
  out.push(Buffer.from(`${batch}]`));
  return out;
}
