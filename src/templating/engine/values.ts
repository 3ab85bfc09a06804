// The template value model. Templates see Python-like values built from plain JS data:
//   None -> null, True/False -> boolean, int -> integral JS number, float -> non-integral JS number or a PyFloat
//   (a float whose value happens to be integral, so `{{ 4 / 2 }}` prints "2.0"), str -> string (or Markup),
//   list -> array, tuple -> array registered in TUPLES, dict -> plain object (context data, read-only) or Map
//   (built by the template, mutable, keeps insertion order and non-string keys).
// Context data arriving as JSON cannot tell 1.0 from 1: a JSON float with an integral value is an int here.
// Pass `new PyFloat(1)` in a JS context to get a float that prints "1.0".
import { TemplateError, typeError, undefinedError } from './errors.ts';

/** What a host object returns from getAttr/getItem when it has no such attribute or item. */
export const UNDEFINED: unique symbol = Symbol('cairn.template.undefined');
/** Brand of the host object protocol: the engine only talks to host objects through the methods below. */
export const TEMPLATE_OBJECT: unique symbol = Symbol('cairn.template.object');

export type Kwargs = Readonly<Record<string, unknown>>;
export const EMPTY_KWARGS: Kwargs = Object.freeze(Object.create(null) as Record<string, unknown>);

/**
 * What a for loop's body does with each item, when all it does is read attributes by constant name (see
 * loopItemReads): each attribute read, with the constant keys read below it, or null where some use takes the
 * attribute's value whole. A host list may then hand the loop plain objects holding those attributes instead of
 * the items (TemplateObject.iterateBatches).
 */
export type ItemReads = ReadonlyMap<string, ReadonlySet<string> | null>;

export interface TemplateObject {
  readonly [TEMPLATE_OBJECT]: true;
  getAttr(name: string): unknown | Promise<unknown>;
  getItem?(key: unknown): unknown | Promise<unknown>;
  callMethod?(name: string, args: unknown[], kwargs: Record<string, unknown>): unknown | Promise<unknown>;
  iterate?(): Iterable<unknown> | AsyncIterable<unknown>;
  /**
   * The same items as iterate(), handed over a batch at a time (optional). A `for` loop that needs no look-ahead
   * (no `loop` variable) pulls batches and runs each one as a list: one await per batch instead of several per
   * item. The engine reads a batch and never changes it.
   * `reads`, when given, is all the loop does with each item (see loopItemReads): the host may then hand out, for
   * any batch, plain objects holding exactly those attributes (and below an attribute with known keys, a plain
   * object of those keys) instead of the items, provided each holds the values the items would answer.
   */
  iterateBatches?(reads: ItemReads | null): AsyncIterator<readonly unknown[]>;
  length?(): number | Promise<number>;
  toTemplateString?(): string;
  truthy?(): boolean;
  /** What error messages call its type ("Object of type Device is not JSON serializable"); default 'object'. */
  typeName?(): string;
}

export function isTemplateObject(v: unknown): v is TemplateObject {
  return typeof v === 'object' && v !== null && (v as { [TEMPLATE_OBJECT]?: unknown })[TEMPLATE_OBJECT] === true;
}

/**
 * Jinja2's Undefined: prints as empty, iterates as empty, is falsy; using it any further raises with its hint.
 * `kind` is 'security' when it stands for a blocked attribute (calling it raises SecurityError like Jinja2's sandbox).
 */
export class Undefined {
  constructor(
    readonly hint: string | null,
    readonly kind: 'undefined' | 'security' = 'undefined',
  ) {}
  fail(): TemplateError {
    return new TemplateError(this.kind, this.hint ?? 'value is undefined');
  }
}
export const PLAIN_UNDEFINED = new Undefined(null);

export function isUndefined(v: unknown): v is Undefined | typeof UNDEFINED | undefined {
  return v instanceof Undefined || v === UNDEFINED || v === undefined;
}
export function undefinedFail(v: unknown): TemplateError {
  return v instanceof Undefined ? v.fail() : undefinedError('value is undefined');
}

/** A float whose value is integral (non-integral JS numbers are floats already). */
export class PyFloat {
  constructor(readonly value: number) {}
}
export function mkFloat(n: number): number | PyFloat {
  return Number.isInteger(n) ? new PyFloat(n) : n;
}
export function isFloat(v: unknown): boolean {
  return v instanceof PyFloat || (typeof v === 'number' && !Number.isInteger(v));
}
export function isInt(v: unknown): v is number | bigint {
  return (typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint';
}
/** int, float or bool (bool is an int in Python). */
export function isNumeric(v: unknown): boolean {
  return typeof v === 'number' || typeof v === 'boolean' || v instanceof PyFloat || typeof v === 'bigint';
}
/** As a JS number (a big int rounds, as Python's float(n) does). */
export function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof PyFloat) return v.value;
  if (typeof v === 'bigint') return Number(v);
  return NaN;
}

// Python ints are unbounded. An int is a JS number while it is a safe integer (the hot path never sees
// anything else) and a bigint only when a literal or an integer operation leaves the safe range; every
// operation normalizes its result back with bigOrNumber, so a bigint is always outside the safe range and
// 2**53 + 1 - 1 compares, hashes and prints like the number it equals.
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
export function bigOrNumber(b: bigint): number | bigint {
  return b <= MAX_SAFE && b >= -MAX_SAFE ? Number(b) : b;
}
/** Exact numeric value for comparisons: JS compares bigint with number exactly. */
export function numValue(v: unknown): number | bigint {
  if (typeof v === 'bigint') return v;
  return toNumber(v);
}
/** An int value (number, bigint or bool) as a bigint; integral JS numbers convert exactly. */
export function toBigInt(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'boolean') return v ? 1n : 0n;
  return BigInt(toNumber(v));
}
/** Python's int(float): truncates; big results stay exact as bigint. Infinity and NaN raise as in Python. */
export function truncToInt(n: number): number | bigint {
  if (!Number.isFinite(n))
    throw typeError(Number.isNaN(n) ? 'cannot convert float NaN to integer' : 'cannot convert float infinity to integer');
  const t = Math.trunc(n);
  return Number.isSafeInteger(t) ? (t === 0 ? 0 : t) : BigInt(t);
}

/** A string marked safe (Jinja2's Markup): escape() leaves it alone, `+` with a plain string escapes the other. */
export class Markup {
  constructor(readonly s: string) {}
  toString(): string {
    return this.s;
  }
}
export function isStr(v: unknown): v is string | Markup {
  return typeof v === 'string' || v instanceof Markup;
}
export function strValue(v: string | Markup): string {
  return typeof v === 'string' ? v : v.s;
}

/** Arrays that are tuples; items(), dictsort, zip-like results and `(a, b)` literals. */
export const TUPLES = new WeakSet<unknown[]>();
export function tuple(items: unknown[]): unknown[] {
  TUPLES.add(items);
  return items;
}
/** (grouper, list) tuples made by the groupby filter: they also answer `.grouper` and `.list`. */
export const GROUP_TUPLES = new WeakSet<unknown[]>();
/** Lists the template built itself (literals, filters): only those accept mutating methods. */
export const OWNED = new WeakSet<unknown[]>();
export function owned(items: unknown[]): unknown[] {
  OWNED.add(items);
  return items;
}
/** Arrays that print as Python views: dict_items([...]), dict_keys([...]), dict_values([...]), range(a, b). */
export const VIEWS = new WeakMap<unknown[], string>();

export type Dict = Record<string, unknown> | Map<unknown, unknown>;
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && !isTemplateObject(v);
}
export function isDict(v: unknown): v is Dict {
  return v instanceof Map || isPlainObject(v);
}
// A Map dict stores values under a *hash key* so that keys Python considers equal (1, 1.0, True; a Markup and
// its str) land on one entry, as in a Python dict. The key the template first wrote is what prints and iterates
// ({1: 'a', 1.0: 'b', True: 'c'} is {1: 'c'}, {True: 1} still prints True), so when it differs from the hash
// key it is remembered here; most dicts never need an entry.
const DISPLAY_KEYS = new WeakMap<Map<unknown, unknown>, Map<unknown, unknown>>();
function displayKey(m: Map<unknown, unknown>, hk: unknown): unknown {
  const d = DISPLAY_KEYS.get(m);
  if (d === undefined) return hk;
  const k = d.get(hk);
  return k === undefined ? hk : k;
}
/** Keys of a dict: Map keys in order, or own enumerable string keys of a plain object. */
export function dictKeys(d: Dict): unknown[] {
  if (!(d instanceof Map)) return Object.keys(d);
  if (!DISPLAY_KEYS.has(d)) return Array.from(d.keys());
  return Array.from(d.keys(), (k) => displayKey(d, k));
}
export function dictSize(d: Dict): number {
  return d instanceof Map ? d.size : Object.keys(d).length;
}
/** The hash key of a dict key: numbers and bools by numeric value (big integral floats as bigint, matching big
 *  ints, which are bigint only outside the safe range), Markup as its string. */
export function normKey(k: unknown): unknown {
  switch (typeof k) {
    case 'string':
    case 'number':
    case 'bigint':
      return k;
    case 'boolean':
      return k ? 1 : 0;
  }
  if (k instanceof PyFloat) {
    const v = k.value;
    return Number.isSafeInteger(v) || !Number.isFinite(v) ? v : BigInt(v);
  }
  if (k instanceof Markup) return k.s;
  return k;
}
/** d[k] = v on a Map dict with Python key equality; the first spelling of a key is the one kept. */
export function dictSet(m: Map<unknown, unknown>, k: unknown, v: unknown): void {
  const hk = normKey(k);
  if (!m.has(hk)) {
    const d = DISPLAY_KEYS.get(m);
    if (hk !== k) {
      if (d === undefined) DISPLAY_KEYS.set(m, new Map([[hk, k]]));
      else d.set(hk, k);
    } else if (d !== undefined) d.delete(hk);
  }
  m.set(hk, v);
}
/** Removes k from a Map dict; returns the [key as written, value] pair, or undefined when absent. */
export function dictDelete(m: Map<unknown, unknown>, k: unknown): [unknown, unknown] | undefined {
  const hk = normKey(k);
  if (!m.has(hk)) return undefined;
  const pair: [unknown, unknown] = [displayKey(m, hk), m.get(hk)];
  m.delete(hk);
  DISPLAY_KEYS.get(m)?.delete(hk);
  return pair;
}
const hasOwn = Object.prototype.hasOwnProperty;
export function dictHas(d: Dict, k: unknown): boolean {
  if (d instanceof Map) return d.has(normKey(k));
  const key = normKey(k);
  return typeof key === 'string' && hasOwn.call(d, key);
}
/** Returns JS undefined when absent. */
export function dictGet(d: Dict, k: unknown): unknown {
  if (d instanceof Map) return d.get(normKey(k));
  const key = normKey(k);
  return typeof key === 'string' && hasOwn.call(d, key) ? d[key] : undefined;
}
export function dictEntries(d: Dict): [unknown, unknown][] {
  if (!(d instanceof Map)) return Object.entries(d);
  if (!DISPLAY_KEYS.has(d)) return Array.from(d.entries());
  return Array.from(d.entries(), ([k, v]): [unknown, unknown] => [displayKey(d, k), v]);
}
export function newDict(entries?: Iterable<[unknown, unknown]>): Map<unknown, unknown> {
  const m = new Map<unknown, unknown>();
  if (entries) for (const [k, v] of entries) dictSet(m, k, v);
  return m;
}

/** Base of the engine's own objects (loop, namespace, cycler, macro, bound method...): no JS property is ever
 *  read by a template name; each class answers attributes through an explicit switch in getAttr. */
export abstract class PyObject {
  abstract readonly typeName: string;
  repr(): string {
    return `<${this.typeName} object>`;
  }
  str(): string {
    return this.repr();
  }
  /** Returns JS undefined when absent. */
  getAttr(_name: string): unknown {
    return undefined;
  }
  isCallable(): boolean {
    return false;
  }
  call(_args: unknown[], _kwargs: Kwargs, _state: unknown): unknown {
    throw typeError(`'${this.typeName}' object is not callable`);
  }
  truthy(): boolean {
    return true;
  }
}

// ---------------------------------------------------------------- printing

export function intStr(n: number): string {
  if (Math.abs(n) < 1e21) return String(n);
  return BigInt(n).toString();
}

/** Python 3.11+ refuses to convert an int of more than 4300 digits to text (sys.int_max_str_digits); the
 *  reference does, so we do too, which also bounds the time a print of a huge int can take. */
export const MAX_INT_STR_DIGITS = 4300;
// 10**4300 needs 14285 bits: anything with more bits certainly has more digits, so it fails before toString.
const MAX_INT_STR_BITS = 14286;
export function bigIntStr(b: bigint): string {
  const mag = b < 0n ? -b : b;
  if (mag.toString(16).length * 4 - 3 > MAX_INT_STR_BITS || mag.toString().length > MAX_INT_STR_DIGITS)
    throw typeError(
      `Exceeds the limit (${MAX_INT_STR_DIGITS} digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit`,
    );
  return b.toString();
}

/** Python's repr(float). */
export function floatRepr(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (n === Infinity) return 'inf';
  if (n === -Infinity) return '-inf';
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const e = n.toExponential();
  const at = e.indexOf('e');
  const exp = Number(e.slice(at + 1));
  const neg = n < 0;
  const digits = e.slice(neg ? 1 : 0, at).replace('.', '');
  const sign = neg ? '-' : '';
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (exp >= 0) {
    const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
    const frac = digits.slice(exp + 1) || '0';
    return `${sign}${intPart}.${frac}`;
  }
  return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
}

export function numberStr(n: number): string {
  return Number.isInteger(n) ? intStr(n) : floatRepr(n);
}

const SIMPLE_STR = /^[\x20-\x26\x28-\x5b\x5d-\x7e]*$/;
/** Python's repr(str). */
export function strRepr(s: string): string {
  if (SIMPLE_STR.test(s)) return `'${s}'`;
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = q;
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === q || ch === '\\') out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || (c >= 0x7f && c < 0xa1) || c === 0xad) out += '\\x' + c.toString(16).padStart(2, '0');
    else if ((c >= 0xd800 && c <= 0xdfff) || c === 0x2028 || c === 0x2029 || c === 0xfeff)
      out += '\\u' + c.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + q;
}

/** Python's str(value) as Jinja2 prints it. */
export function toStr(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
      return Number.isInteger(v) ? intStr(v) : floatRepr(v);
    case 'boolean':
      return v ? 'True' : 'False';
    case 'undefined':
      return '';
    case 'bigint':
      return bigIntStr(v);
    case 'symbol':
      return '';
    case 'function':
      return '';
  }
  if (v === null) return 'None';
  if (v instanceof Markup) return v.s;
  if (v instanceof Undefined) return '';
  if (v instanceof PyFloat) return floatRepr(v.value);
  if (v instanceof PyObject) return v.str();
  if (isTemplateObject(v)) return v.toTemplateString ? String(v.toTemplateString()) : '<object>';
  return repr(v);
}

/** Python's repr(value). */
export function repr(v: unknown, seen?: unknown[]): string {
  switch (typeof v) {
    case 'string':
      return strRepr(v);
    case 'number':
    case 'boolean':
    case 'bigint':
      return toStr(v);
    case 'undefined':
      return 'Undefined';
    case 'symbol':
      return 'Undefined';
    case 'function':
      return 'Undefined';
  }
  if (v === null) return 'None';
  if (v instanceof Markup) return `Markup(${strRepr(v.s)})`;
  if (v instanceof Undefined) return 'Undefined';
  if (v instanceof PyFloat) return floatRepr(v.value);
  if (v instanceof PyObject) return v.repr();
  if (isTemplateObject(v)) return v.toTemplateString ? String(v.toTemplateString()) : '<object>';
  if (seen?.includes(v)) return Array.isArray(v) ? (TUPLES.has(v) ? '(...)' : '[...]') : '{...}';
  const inner = seen ? [...seen, v] : [v];
  if (Array.isArray(v)) {
    const view = VIEWS.get(v);
    if (view !== undefined && view.startsWith('range(')) return view;
    const parts = v.map((x) => repr(x, inner));
    if (TUPLES.has(v)) return parts.length === 1 ? `(${parts[0]},)` : `(${parts.join(', ')})`;
    const body = `[${parts.join(', ')}]`;
    return view !== undefined ? `${view}(${body})` : body;
  }
  if (v instanceof Map) {
    const parts: string[] = [];
    for (const [k, x] of dictEntries(v)) parts.push(`${repr(k, inner)}: ${repr(x, inner)}`);
    return `{${parts.join(', ')}}`;
  }
  if (isPlainObject(v)) {
    const parts: string[] = [];
    for (const k of Object.keys(v)) parts.push(`${strRepr(k)}: ${repr(v[k], inner)}`);
    return `{${parts.join(', ')}}`;
  }
  return '<object>';
}

/** Python type name, for error messages and a few filters. */
export function typeName(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return 'str';
    case 'number':
      return Number.isInteger(v) ? 'int' : 'float';
    case 'bigint':
      return 'int';
    case 'boolean':
      return 'bool';
    case 'undefined':
      return 'Undefined';
    case 'function':
      return 'Undefined';
    case 'symbol':
      return 'Undefined';
  }
  if (v === null) return 'NoneType';
  if (v instanceof Markup) return 'Markup';
  if (v instanceof PyFloat) return 'float';
  if (v instanceof Undefined) return 'Undefined';
  if (v instanceof PyObject) return v.typeName;
  if (Array.isArray(v)) return TUPLES.has(v) ? 'tuple' : 'list';
  if (isDict(v)) return 'dict';
  if (isTemplateObject(v)) return v.typeName?.() ?? 'object';
  return 'object';
}
/** Jinja2's object_type_repr, used in "'dict object' has no attribute 'x'". */
export function objectTypeRepr(v: unknown): string {
  if (v === null) return 'None';
  return `${typeName(v)} object`;
}

// ---------------------------------------------------------------- truth, equality, ordering

export function truthy(v: unknown): boolean {
  switch (typeof v) {
    case 'boolean':
      return v;
    case 'string':
      return v.length > 0;
    case 'number':
      return v !== 0;
    case 'bigint':
      return v !== 0n;
    case 'undefined':
    case 'symbol':
      return false;
  }
  if (v === null || v instanceof Undefined) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof PyFloat) return v.value !== 0;
  if (v instanceof Markup) return v.s.length > 0;
  if (v instanceof Map) return v.size > 0;
  if (v instanceof PyObject) return v.truthy();
  if (isTemplateObject(v)) return v.truthy ? v.truthy() : true;
  if (isPlainObject(v)) {
    for (const k in v) if (hasOwn.call(v, k)) return true;
    return false;
  }
  return true;
}

export function pyEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const ta = typeof a;
  if ((ta === 'number' || ta === 'boolean' || ta === 'bigint' || a instanceof PyFloat) && isNumeric(b))
    // Loose == on purpose: it is JS's exact comparison between a bigint and a number (=== would say 2n !== 2).
    return numValue(a) == numValue(b);
  if (isStr(a)) return isStr(b) && strValue(a) === strValue(b);
  if (isUndefined(a)) return isUndefined(b);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length || TUPLES.has(a) !== TUPLES.has(b)) return false;
    for (let i = 0; i < a.length; i++) if (!pyEquals(a[i], b[i])) return false;
    return true;
  }
  if (isDict(a)) {
    if (!isDict(b) || dictSize(a) !== dictSize(b)) return false;
    for (const [k, v] of dictEntries(a)) {
      if (!dictHas(b, k) || !pyEquals(v, dictGet(b, k))) return false;
    }
    return true;
  }
  return false;
}

/** Python ordering: -1, 0 or 1; raises TypeError like Python for unorderable pairs. */
export function pyCompare(a: unknown, b: unknown, op = '<'): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (isNumeric(a) && isNumeric(b)) {
    const x = numValue(a);
    const y = numValue(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (isStr(a) && isStr(b)) {
    const x = strValue(a);
    const y = strValue(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (Array.isArray(a) && Array.isArray(b) && TUPLES.has(a) === TUPLES.has(b)) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      if (!pyEquals(a[i], b[i])) return pyCompare(a[i], b[i], op);
    }
    return a.length - b.length < 0 ? -1 : a.length > b.length ? 1 : 0;
  }
  if (isUndefined(a)) throw undefinedFail(a);
  if (isUndefined(b)) throw undefinedFail(b);
  throw typeError(`'${op}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`);
}

/** `value % n == 0` with Python's numeric rules (used by divisibleby/even/odd). */
export function mod0(v: unknown, n: unknown): boolean {
  if (!isNumeric(v) || !isNumeric(n)) {
    if (isUndefined(v)) throw undefinedFail(v);
    throw typeError(`unsupported operand type(s) for %: '${typeName(v)}' and '${typeName(n)}'`);
  }
  const y = toNumber(n);
  if (y === 0) throw typeError('integer division or modulo by zero');
  if ((typeof v === 'bigint' || typeof n === 'bigint') && !isFloat(v) && !isFloat(n)) return toBigInt(v) % toBigInt(n) === 0n;
  return toNumber(v) % y === 0;
}
