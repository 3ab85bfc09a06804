// Checks one input value against its field definition and converts it to what the column stores.
// Returns an error message (for the `{field: [message]}` answer) or the stored value.
import ipaddr from 'ipaddr.js';
import type { ChoiceOption, FieldDef } from '../registry.ts';
import { isUuid } from '../ids.ts';
import { vocabularyOptions } from '../vocabularies.ts';
import { NaturalKey, acceptsNaturalKey } from './natural-keys.ts';

export type Checked = { ok: true; value: unknown } | { ok: false; message: string };

/** One row a generic_m2m field points at: its model and its id. */
export interface GenericRef {
  object_type: string;
  object_id: string;
}

const ok = (value: unknown): Checked => ({ ok: true, value });
const bad = (message: string): Checked => ({ ok: false, message });

const SLUG_RE = /^[-a-zA-Z0-9_]+$/;
const COLOR_RE = /^[0-9a-fA-F]{6}$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
export const DEFAULT_MAX_STRING = 200;
export const MAX_TEXT = 100_000;

export function choiceOptions(field: FieldDef): readonly ChoiceOption[] {
  return field.choices ?? (field.vocabulary ? vocabularyOptions(field.vocabulary) : []);
}

function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export function isValidDate(text: string): boolean {
  const m = DATE_RE.exec(text);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/** Parses `addr[/len]`; returns null when it is not an address. */
export function parseInet(text: string): { addr: ipaddr.IPv4 | ipaddr.IPv6; len: number } | null {
  const [a, l, extra] = text.split('/');
  if (extra !== undefined || !a) return null;
  if (!ipaddr.isValid(a)) return null;
  // Refuse the shorthand forms ipaddr.js accepts for IPv4 (`10.1`, octal, hex): only dotted quads.
  if (a.includes('.') && !a.includes(':') && !/^\d{1,3}(\.\d{1,3}){3}$/.test(a)) return null;
  const addr = ipaddr.parse(a);
  const max = addr.kind() === 'ipv4' ? 32 : 128;
  if (l === undefined) return { addr, len: max };
  if (!/^\d{1,3}$/.test(l) || Number(l) > max) return null;
  return { addr, len: Number(l) };
}

function networkOf(addr: ipaddr.IPv4 | ipaddr.IPv6, len: number): string {
  const bytes = addr.toByteArray();
  for (let i = 0; i < bytes.length; i++) {
    const bitsHere = Math.max(0, Math.min(8, len - i * 8));
    bytes[i]! &= (0xff << (8 - bitsHere)) & 0xff;
  }
  return `${ipaddr.fromByteArray(bytes).toString()}/${len}`;
}

export function checkFieldValue(key: string, field: FieldDef, value: unknown): Checked {
  if (value === null) {
    if (field.nullable) return ok(null);
    return bad('This field may not be null.');
  }
  switch (field.kind) {
    case 'string':
    case 'text':
    case 'slug':
    case 'url': {
      if (typeof value !== 'string') return bad('Not a valid string.');
      const max = field.maxLength ?? (field.kind === 'text' ? MAX_TEXT : field.kind === 'url' ? 500 : DEFAULT_MAX_STRING);
      if (value.length > max) return bad(`Ensure this field has no more than ${max} characters.`);
      if (value.includes('\u0000')) return bad('Null characters are not allowed.');
      if (field.kind === 'slug' && !SLUG_RE.test(value)) return bad('Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.');
      if (field.kind === 'url' && value !== '') {
        let url: URL | null = null;
        try {
          url = new URL(value);
        } catch {
          /* reported below */
        }
        if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return bad('Enter a valid URL starting with http:// or https://.');
      }
      let text: string = value;
      if (field.normalize && text !== '') {
        const normal = field.normalize(text);
        if (normal === null) return bad(field.patternMessage ?? 'Not a valid value.');
        text = normal;
      }
      if (field.pattern && !field.pattern.test(text)) return bad(field.patternMessage ?? `Does not match the required pattern ${field.pattern.source}.`);
      if (field.kind !== 'text' && (field.required ?? !field.nullable) && field.default === undefined && text.trim() === '' && field.kind !== 'url') {
        return bad('This field may not be blank.');
      }
      return ok(text);
    }
    case 'integer': {
      if (typeof value !== 'number' || !Number.isInteger(value)) return bad('A valid integer is required.');
      if (!Number.isSafeInteger(value)) return bad('Ensure this value is a safe integer.');
      if (field.min !== undefined && value < field.min) return bad(`Ensure this value is greater than or equal to ${field.min}.`);
      if (field.max !== undefined && value > field.max) return bad(`Ensure this value is less than or equal to ${field.max}.`);
      return ok(value);
    }
    case 'decimal': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : NaN;
      if (!Number.isFinite(n)) return bad('A valid number is required.');
      if (field.min !== undefined && n < field.min) return bad(`Ensure this value is greater than or equal to ${field.min}.`);
      if (field.max !== undefined && n > field.max) return bad(`Ensure this value is less than or equal to ${field.max}.`);
      return ok(String(n));
    }
    case 'boolean':
      return typeof value === 'boolean' ? ok(value) : bad('Must be a valid boolean.');
    case 'date':
      return typeof value === 'string' && isValidDate(value) ? ok(value) : bad('Date has wrong format. Use YYYY-MM-DD.');
    case 'datetime': {
      if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(value) || Number.isNaN(Date.parse(value))) {
        return bad('Datetime has wrong format. Use an ISO 8601 timestamp.');
      }
      return ok(new Date(value).toISOString());
    }
    case 'json': {
      if (field.jsonObject && (typeof value !== 'object' || Array.isArray(value))) return bad('Must be a JSON object.');
      if (JSON.stringify(value).length > 1_000_000) return bad('JSON value is larger than 1 MB.');
      return ok(value);
    }
    case 'custom_fields':
      if (typeof value !== 'object' || Array.isArray(value)) return bad('Must be a JSON object of custom field values.');
      return ok(value);
    case 'choice': {
      const options = choiceOptions(field);
      if (typeof value !== 'string' || !options.some((o) => o.value === value)) return bad(`"${shown(value)}" is not a valid choice.`);
      return ok(value);
    }
    case 'color':
      return typeof value === 'string' && COLOR_RE.test(value) ? ok(value.toLowerCase()) : bad('Enter a valid hexadecimal RGB color code (six hex digits, e.g. 00ff00).');
    case 'inet': {
      const parsed = typeof value === 'string' ? parseInet(value) : null;
      if (!parsed) return bad(`"${shown(value)}" is not a valid IP address with an optional mask length.`);
      return ok(`${parsed.addr.toString()}/${parsed.len}`);
    }
    case 'cidr': {
      const parsed = typeof value === 'string' && value.includes('/') ? parseInet(value) : null;
      if (!parsed) return bad(`"${shown(value)}" is not a valid prefix (address/length).`);
      const network = networkOf(parsed.addr, parsed.len);
      if (network !== `${parsed.addr.toString()}/${parsed.len}`) return bad(`${shown(value)} has host bits set; the network is ${network}.`);
      return ok(network);
    }
    case 'uuid':
    case 'fk':
      if (isUuid(value)) return ok(value.toLowerCase());
      // A slug or unique name, resolved to the id inside the write (natural-keys.ts).
      if (typeof value === 'string' && acceptsNaturalKey(field.target, value)) return ok(new NaturalKey(value));
      return bad(`"${shown(value)}" is not a valid id.`);
    case 'm2m':
    case 'tags': {
      if (!Array.isArray(value)) return bad('Expected a list of ids.');
      for (const item of value) if (!isUuid(item)) return bad(`"${shown(item)}" is not a valid id.`);
      if (value.length > 1000) return bad('At most 1000 items.');
      return ok([...new Set(value.map((v: string) => v.toLowerCase()))]);
    }
    case 'generic_m2m':
      return checkGenericRefs(field, value);
    case 'string_list': {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return bad('Expected a list of strings.');
      const max = field.maxLength ?? DEFAULT_MAX_STRING;
      if (value.some((v: string) => v.length > max)) return bad(`Ensure each item has no more than ${max} characters.`);
      return ok(value);
    }
    case 'integer_list': {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'number' || !Number.isInteger(v))) return bad('Expected a list of integers.');
      if (field.min !== undefined && value.some((v: number) => v < field.min!)) return bad(`Ensure each value is greater than or equal to ${field.min}.`);
      if (field.max !== undefined && value.some((v: number) => v > field.max!)) return bad(`Ensure each value is less than or equal to ${field.max}.`);
      return ok(value);
    }
  }
}

/** `[{"object_type": "dcim.frontport", "object_id": "…"}, …]`, where a bare id means the field's default target. */
function checkGenericRefs(field: FieldDef, value: unknown): Checked {
  const targets = field.generic!.targets;
  if (!Array.isArray(value)) return bad(`Expected a list of {"object_type", "object_id"} objects (object_type one of ${targets.join(', ')}).`);
  if (value.length > 1000) return bad('At most 1000 items.');
  const out: GenericRef[] = [];
  const seen = new Set<string>();
  for (const item of value) {
    let ref: GenericRef;
    if (isUuid(item)) ref = { object_type: field.target!, object_id: item.toLowerCase() };
    else if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
      const { object_type: type, object_id: id } = item as Record<string, unknown>;
      if (typeof type !== 'string' || !targets.includes(type)) return bad(`"${shown(type ?? null)}" is not a valid object_type; use one of ${targets.join(', ')}.`);
      if (id === undefined) return bad('Each item needs an object_id.');
      if (!isUuid(id)) return bad(`"${shown(id)}" is not a valid object_id.`);
      ref = { object_type: type, object_id: id.toLowerCase() };
    } else return bad(`"${shown(item)}" is neither an id nor an {"object_type", "object_id"} object.`);
    const k = `${ref.object_type}:${ref.object_id}`;
    if (!seen.has(k)) out.push(ref);
    seen.add(k);
  }
  return ok(out);
}
