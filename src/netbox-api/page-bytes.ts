// A NetBox list page's JSON, written with each shared nested object's text made once (issue 53).
//
// Why: most of a NetBox page's bytes are the brief objects its rows nest (a device's site, rack, role, type, status),
// and the rows of a page share them: 1,000 devices of a few sites nest the same few site briefs. toNetbox gives
// each such object once (serializer.ts, Related.shared); JSON.stringify would still write it once per row. Here its
// text is written once and reused. The bytes are JSON.stringify's: keys in their order, `undefined` left out of
// objects and null in arrays, every other value through JSON.stringify itself. Encoded a batch of rows at a time,
// as core/json-bytes.ts does (no one string of the whole page: see there).

type Json = Record<string, unknown>;

/** Characters encoded at a time (as core/json-bytes.ts). */
const BATCH_CHARS = 16_384;

class TextWriter {
  private readonly texts = new Map<object, string>();
  private readonly keys = new Map<string, string>();

  constructor(private readonly shared: ReadonlySet<object>) {}

  /** JSON.stringify(value) as a property's or an element's value (undefined where JSON.stringify gives undefined). */
  value(value: unknown): string | undefined {
    if (value === null || typeof value !== 'object') return JSON.stringify(value);
    if (this.shared.has(value)) {
      let text = this.texts.get(value);
      if (text === undefined) this.texts.set(value, (text = JSON.stringify(value)));
      return text;
    }
    if (Array.isArray(value)) {
      let text = '[';
      for (let i = 0; i < value.length; i++) text += (i ? ',' : '') + (this.value(value[i]) ?? 'null');
      return text + ']';
    }
    // Anything else (a custom field's values, a Date) as JSON.stringify writes it.
    return JSON.stringify(value);
  }

  /** A page's row: a plain object, its own keys in order. */
  row(obj: Json): string {
    let text = '';
    for (const key of Object.keys(obj)) {
      const v = this.value(obj[key]);
      if (v === undefined) continue;
      let quoted = this.keys.get(key);
      if (quoted === undefined) this.keys.set(key, (quoted = JSON.stringify(key)));
      text += (text ? ',' : '{') + quoted + ':' + v;
    }
    return text ? text + '}' : '{}';
  }
}

/**
 * The bytes of `JSON.stringify({...envelope, results: rows})` (the envelope's keys in its order, `results` among
 * them), with the text of each object of `shared` written once.
 */
export function netboxPageBytes(envelope: { results: unknown }, rows: Json[], shared: ReadonlySet<object>): Buffer {
  const writer = new TextWriter(shared);
  const parts: Buffer[] = [];
  let first = true;
  for (const key of Object.keys(envelope)) {
    const prefix = `${first ? '{' : ','}${JSON.stringify(key)}:`;
    if (key === 'results') {
      first = false;
      let batch = `${prefix}[`;
      for (let i = 0; i < rows.length; i++) {
        batch += (i ? ',' : '') + writer.row(rows[i]!);
        if (batch.length >= BATCH_CHARS) {
          parts.push(Buffer.from(batch));
          batch = '';
        }
      }
      parts.push(Buffer.from(`${batch}]`));
      continue;
    }
    const text = writer.value((envelope as Json)[key]);
    if (text === undefined) continue;
    first = false;
    parts.push(Buffer.from(prefix + text));
  }
  parts.push(Buffer.from(first ? '{}' : '}'));
  return Buffer.concat(parts);
}
