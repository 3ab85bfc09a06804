// A NetBox list page's JSON, written straight from Cairn's objects (issue 53).
//
// Why: most of a NetBox page's bytes are the brief objects its rows nest (a device's site, rack, role, type, status),
// and the rows of a page share them: 1,000 devices of a few sites nest the same few site briefs. The shaper gives
// each such object once (serializer.ts, netboxShaper's `shared`); JSON.stringify would still write it once per row.
// Here its text is written once and reused, and a row's keys are written as the shaper gives them, with no NetBox
// object built in between. The bytes are JSON.stringify's: keys in their order, `undefined` left out of objects and
// null in arrays, every other value as JSON.stringify writes it. Encoded a batch of rows at a time, as
// core/json-bytes.ts does (no one string of the whole page: see there).
import type { NetboxSink } from './serializer.ts';

type Json = Record<string, unknown>;

/** Characters encoded at a time (as core/json-bytes.ts). */
const BATCH_CHARS = 16_384;

/** JSON text of values, each shared object's written once. */
class JsonText {
  private readonly texts = new Map<object, string>();

  constructor(private readonly shared: ReadonlySet<object>) {}

  /** JSON.stringify(value) as a property's or an element's value (undefined where JSON.stringify gives undefined). */
  value(value: unknown): string | undefined {
    switch (typeof value) {
      case 'string':
        return JSON.stringify(value);
      case 'number':
        return Number.isFinite(value) ? String(value) : 'null';
      case 'boolean':
        return value ? 'true' : 'false';
      case 'object':
        break;
      default:
        return JSON.stringify(value);
    }
    if (value === null) return 'null';
    // Most objects of a page are shared (briefs, choices): their text is asked for first.
    let text = this.texts.get(value);
    if (text !== undefined) return text;
    if (this.shared.has(value)) {
      this.texts.set(value, (text = JSON.stringify(value)));
      return text;
    }
    if (Array.isArray(value)) {
      if (value.length === 0) return '[]';
      text = '[';
      for (let i = 0; i < value.length; i++) text += (i ? ',' : '') + (this.value(value[i]) ?? 'null');
      return text + ']';
    }
    // Anything else (a custom field's values, a Date) as JSON.stringify writes it.
    return JSON.stringify(value);
  }
}

/** One row's text, its keys written as they are set (the shaper sets each key once: `distinctKeys`). */
class RowText implements NetboxSink {
  text = '';
  /** `"key":` and `,"key":` of each key met: the first key of a row, the others. */
  private readonly keys: Record<string, readonly [string, string]> = Object.create(null);

  constructor(private readonly json: JsonText) {}

  set(key: string, value: unknown): void {
    const v = this.json.value(value);
    if (v === undefined) return;
    let quoted = this.keys[key];
    if (quoted === undefined) {
      const text = `${JSON.stringify(key)}:`;
      this.keys[key] = quoted = [text, `,${text}`];
    }
    this.text += quoted[this.text === '' ? 0 : 1] + v;
  }
}

/**
 * The bytes of `JSON.stringify({...envelope, results})` (the envelope's keys in its order, `results` among them),
 * where `results` are the NetBox objects `write` gives for `objects`, each key set once, the objects of `shared`
 * never changed.
 */
export function netboxPageBytes<T>(envelope: { results: unknown }, objects: readonly T[], write: (o: T, sink: NetboxSink) => void, shared: ReadonlySet<object>): Buffer {
  const json = new JsonText(shared);
  const row = new RowText(json);
  const parts: Buffer[] = [];
  let first = true;
  for (const key of Object.keys(envelope)) {
    const prefix = `${first ? '{' : ','}${JSON.stringify(key)}:`;
    if (key === 'results') {
      first = false;
      let batch = `${prefix}[`;
      for (let i = 0; i < objects.length; i++) {
        row.text = '';
        write(objects[i]!, row);
        batch += (i ? ',{' : '{') + row.text + '}';
        if (batch.length >= BATCH_CHARS) {
          parts.push(Buffer.from(batch));
          batch = '';
        }
      }
      parts.push(Buffer.from(`${batch}]`));
      continue;
    }
    const text = json.value((envelope as Json)[key]);
    if (text === undefined) continue;
    first = false;
    parts.push(Buffer.from(prefix + text));
  }
  parts.push(Buffer.from(first ? '{}' : '}'));
  return Buffer.concat(parts);
}
