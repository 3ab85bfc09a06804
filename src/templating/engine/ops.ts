// The sandboxed operations every template expression goes through: attribute and item lookup, calls, arithmetic,
// membership, iteration. Host objects are only reached through the TemplateObject protocol; plain objects only
// through their own enumerable data keys; functions found in data never become callable values.
import { TemplateError, limitError, securityError, typeError } from './errors.ts';
import { callBuiltinMethod, hasBuiltinMethod } from './methods.ts';
import { hasAstral } from './pystr.ts';
import type { RenderState } from './state.ts';
import { percentFormat } from './format.ts';
import {
  EMPTY_KWARGS,
  GROUP_TUPLES,
  type Kwargs,
  Markup,
  OWNED,
  PyFloat,
  PyObject,
  TEMPLATE_OBJECT,
  TUPLES,
  UNDEFINED,
  Undefined,
  dictGet,
  dictHas,
  dictKeys,
  isDict,
  bigOrNumber,
  isFloat,
  isInt,
  toBigInt,
  isNumeric,
  isPlainObject,
  isStr,
  isTemplateObject,
  mkFloat,
  objectTypeRepr,
  pyEquals,
  strValue,
  toNumber,
  toStr,
  typeName,
  undefinedFail,
  isUndefined,
  type TemplateObject,
} from './values.ts';

const hasOwn = Object.prototype.hasOwnProperty;
const OBJECT_DUNDERS = new Set(['__class__', '__init__', '__dict__', '__doc__', '__module__', '__repr__', '__str__', '__hash__', '__eq__', '__ne__', '__getattribute__', '__setattr__', '__delattr__', '__dir__', '__reduce__', '__reduce_ex__', '__sizeof__', '__subclasshook__', '__init_subclass__', '__format__', '__new__', '__lt__', '__le__', '__gt__', '__ge__', '__iter__', '__len__', '__bool__', '__call__', '__getattr__', '__getitem__', '__weakref__']);
const BLOCKED = new Set(['constructor', 'prototype', 'caller', 'callee', 'arguments', 'mro']);

export function isUnsafeName(name: string): boolean {
  return name.charCodeAt(0) === 95 /* _ */ || BLOCKED.has(name);
}
/** Python attributes a sandbox refuses (they exist on every object); JS-only names simply do not exist. */
function isPrivateName(name: string): boolean {
  return name.charCodeAt(0) === 95;
}

/** A method of a value taken without calling it (`{% set f = s.upper %}`); calling it dispatches the method. */
export class BoundMethod extends PyObject {
  readonly typeName = 'builtin_method';
  constructor(
    readonly self: unknown,
    readonly name: string,
  ) {
    super();
  }
  override repr(): string {
    return `<built-in method ${this.name} of ${objectTypeRepr(this.self)}>`;
  }
  override isCallable(): boolean {
    return true;
  }
  override call(args: unknown[], kwargs: Kwargs, state: RenderState): unknown {
    return callMethod(this.self, this.name, args, kwargs, state);
  }
}

/** A function the environment registered (globals, cycler.next...): the only JS functions a template can call. */
export class NativeFunction extends PyObject {
  readonly typeName = 'builtin';
  constructor(
    readonly name: string,
    readonly fn: (args: unknown[], kwargs: Kwargs, state: RenderState) => unknown,
  ) {
    super();
  }
  override repr(): string {
    return `<built-in ${this.name}>`;
  }
  override isCallable(): boolean {
    return true;
  }
  override call(args: unknown[], kwargs: Kwargs, state: RenderState): unknown {
    return this.fn(args, kwargs, state);
  }
}

/** Turns whatever a host or data lookup produced into a template value. */
export function fromHost(v: unknown, hint: () => string): unknown {
  if (v === undefined || v === UNDEFINED) return new Undefined(hint());
  if (typeof v === 'function') return new Undefined(hint(), 'security');
  // A Promise is passed on as is (one hop less per async attribute): whatever it resolves to is safe anyway,
  // because every operation treats UNDEFINED/undefined as Undefined and never calls a JS function.
  return v;
}

function missingAttr(obj: unknown, name: string): Undefined {
  return new Undefined(`${objectTypeRepr(obj)} has no attribute '${name}'`);
}

// The hints below are built by functions of their own, not by arrows inside getAttr/hostAttr: an arrow closing over
// a function's parameters makes V8 allocate a context on every call of that function, used or not, and these run
// once per attribute a template reads.

/** A dict's own value of `name`, as a template value. */
function dictValue(obj: Record<string, unknown>, name: string): unknown {
  const v = obj[name];
  if (v === undefined || v === UNDEFINED || typeof v === 'function') return missingDictValue(obj, name, v);
  return v;
}

function missingHostItem(o: TemplateObject, key: unknown, v: unknown): unknown {
  return fromHost(v, () => `'${hostName(o)}' has no element ${toStr(key)}`);
}

function missingDictItem(obj: unknown, key: unknown, v: unknown): unknown {
  return fromHost(v, () => `${objectTypeRepr(obj)} has no element ${toStr(key)}`);
}

function missingDictValue(obj: Record<string, unknown>, name: string, v: unknown): unknown {
  return fromHost(v, () => `${objectTypeRepr(obj)} has no attribute '${name}'`);
}

function missingHostAttr(o: TemplateObject, name: string, v: unknown): unknown {
  return fromHost(v, () => `'${hostName(o)}' has no attribute '${name}'`);
}

/** `obj.name` of a host object for a name known to be neither private nor blocked (see getAttr). */
export function hostAttr(o: TemplateObject, name: string): unknown {
  let v: unknown;
  try {
    v = o.getAttr(name);
  } catch (err) {
    throw hostError(err);
  }
  if (v === undefined || v === UNDEFINED || typeof v === 'function') return missingHostAttr(o, name, v);
  return v;
}

function hostName(o: TemplateObject): string {
  try {
    return o.toTemplateString ? `${o.toTemplateString()}` : 'object';
  } catch {
    return 'object';
  }
}

export function hostError(err: unknown): TemplateError {
  if (err instanceof TemplateError) return err;
  return new TemplateError('runtime', err instanceof Error ? err.message : String(err), { cause: err });
}

/** `obj.name`: Jinja2's getattr with item fallback, sandboxed. May return a Promise (host objects only). */
export function getAttr(obj: unknown, name: string): unknown {
  if (obj instanceof Undefined || obj === undefined || obj === UNDEFINED) {
    // A blocked attribute stays blocked further down the chain; Python attributes every object has (__class__...)
    // are refused quietly by Jinja2's sandbox, anything else on an undefined value raises.
    if (obj instanceof Undefined && obj.kind === 'security') throw obj.fail();
    if (OBJECT_DUNDERS.has(name)) return new Undefined(`access to attribute '${name}' of 'Undefined' object is unsafe.`, 'security');
    throw undefinedFail(obj);
  }
  // Host objects first: a list render reads several of their attributes per row. The same checks as below, in
  // the same order for them (a host object is neither a dict nor a Map).
  if (typeof obj === 'object' && obj !== null && (obj as { [TEMPLATE_OBJECT]?: unknown })[TEMPLATE_OBJECT] === true) {
    if (isPrivateName(name)) return new Undefined(`access to attribute '${name}' of ${objectTypeRepr(obj)} is unsafe.`, 'security');
    if (isUnsafeName(name)) return missingAttr(obj, name);
    return hostAttr(obj as TemplateObject, name);
  }
  if (typeof obj === 'object' && obj !== null && (obj instanceof Map || isPlainObject(obj))) {
    // A dict's data keys are data, whatever their name (Jinja2 falls back to the item); only methods are attributes.
    if (!isUnsafeName(name) && hasBuiltinMethod(obj, name)) return new BoundMethod(obj, name);
    if (obj instanceof Map) {
      const v = obj.get(name);
      return v === undefined ? missingAttr(obj, name) : v;
    }
    if (hasOwn.call(obj, name)) return dictValue(obj, name);
    return missingAttr(obj, name);
  }
  if (isPrivateName(name)) return new Undefined(`access to attribute '${name}' of ${objectTypeRepr(obj)} is unsafe.`, 'security');
  if (isUnsafeName(name)) return missingAttr(obj, name);
  if (typeof obj === 'object' && obj !== null) {
    if ((obj as { [TEMPLATE_OBJECT]?: unknown })[TEMPLATE_OBJECT] === true) return hostAttr(obj as TemplateObject, name);
    if (obj instanceof PyObject) {
      const v = obj.getAttr(name);
      return v === undefined ? missingAttr(obj, name) : v;
    }
    if (obj instanceof Map) {
      if (hasBuiltinMethod(obj, name)) return new BoundMethod(obj, name);
      const v = obj.get(name);
      return v === undefined ? missingAttr(obj, name) : v;
    }
    if (isPlainObject(obj)) {
      if (hasBuiltinMethod(obj, name)) return new BoundMethod(obj, name);
      if (hasOwn.call(obj, name)) return dictValue(obj, name);
      return missingAttr(obj, name);
    }
  }
  if (Array.isArray(obj) && GROUP_TUPLES.has(obj) && (name === 'grouper' || name === 'list'))
    return obj[name === 'grouper' ? 0 : 1];
  if (hasBuiltinMethod(obj, name)) return new BoundMethod(obj, name);
  return missingAttr(obj, name);
}

/** `obj[key]`: item first, then attribute for string keys (Jinja2's getitem). */
export function getItem(obj: unknown, key: unknown): unknown {
  if (obj instanceof Undefined || obj === undefined || obj === UNDEFINED) throw undefinedFail(obj);
  if (Array.isArray(obj)) {
    if (typeof key === 'number' || typeof key === 'boolean') {
      let i = toNumber(key);
      if (Number.isInteger(i)) {
        if (i < 0) i += obj.length;
        const v = obj[i];
        if (i >= 0 && i < obj.length) return v === undefined ? new Undefined(null) : v;
        return new Undefined(`${objectTypeRepr(obj)} has no element ${toStr(key)}`);
      }
    }
    if (typeof key === 'string') return getAttr(obj, key);
    return new Undefined(`${objectTypeRepr(obj)} has no element ${toStr(key)}`);
  }
  if (isStr(obj)) {
    if (typeof key === 'number' || typeof key === 'boolean') {
      const s = strValue(obj);
      const chars: ArrayLike<string> = hasAstral(s) ? Array.from(s) : s;
      let i = toNumber(key);
      if (Number.isInteger(i)) {
        if (i < 0) i += chars.length;
        if (i >= 0 && i < chars.length) return chars[i];
      }
      return new Undefined(`${objectTypeRepr(obj)} has no element ${toStr(key)}`);
    }
    if (typeof key === 'string') return getAttr(obj, key);
    return new Undefined(`${objectTypeRepr(obj)} has no element ${toStr(key)}`);
  }
  if (typeof obj === 'object' && obj !== null) {
    if ((obj as { [TEMPLATE_OBJECT]?: unknown })[TEMPLATE_OBJECT] === true) {
      const o = obj as TemplateObject;
      if (o.getItem) {
        let v: unknown;
        try {
          v = o.getItem(key);
        } catch (err) {
          throw hostError(err);
        }
        return v === undefined || v === UNDEFINED || typeof v === 'function' ? missingHostItem(o, key, v) : v;
      }
      return typeof key === 'string' ? getAttr(obj, key) : new Undefined(`object has no element ${toStr(key)}`);
    }
    if (isDict(obj)) {
      if (dictHas(obj, key)) {
        const v = dictGet(obj, key);
        return v === undefined || v === UNDEFINED || typeof v === 'function' ? missingDictItem(obj, key, v) : v;
      }
      if (typeof key === 'string' && hasBuiltinMethod(obj, key) && !isUnsafeName(key)) return new BoundMethod(obj, key);
      return new Undefined(`${objectTypeRepr(obj)} has no attribute ${typeof key === 'string' ? `'${key}'` : toStr(key)}`);
    }
    if (obj instanceof PyObject && typeof key === 'string') return getAttr(obj, key);
  }
  return new Undefined(`${objectTypeRepr(obj)} has no element ${toStr(key)}`);
}

function sliceIndex(v: unknown): number | null {
  if (v === null || isUndefined(v)) return null;
  if ((typeof v === 'number' && Number.isInteger(v)) || typeof v === 'boolean') return toNumber(v);
  throw typeError('slice indices must be integers or None or have an __index__ method');
}

/** The indices a Python slice of a sequence of `len` items picks, in order. */
function sliceIndices(len: number, start: unknown, stop: unknown, st: number): number[] {
  const norm = (v: number | null, dflt: number, lower: number, upper: number): number => {
    if (v === null) return dflt;
    if (v < 0) v += len;
    return v < lower ? lower : v > upper ? upper : v;
  };
  const lower = st > 0 ? 0 : -1;
  const upper = st > 0 ? len : len - 1;
  const a = norm(sliceIndex(start), st > 0 ? lower : upper, lower, upper);
  const b = norm(sliceIndex(stop), st > 0 ? upper : lower, lower, upper);
  const out: number[] = [];
  if (st > 0) for (let i = a; i < b; i += st) out.push(i);
  else for (let i = a; i > b; i += st) out.push(i);
  return out;
}

/**
 * A slice of a host sequence (a list of rows, as `objects[:3]`): its length, then each picked item by index, as a
 * list the template owns. Needs both getItem and length; anything else is not subscriptable, as in Python.
 */
function sliceHost(obj: TemplateObject, start: unknown, stop: unknown, st: number): unknown {
  if (!obj.getItem || !obj.length) throw typeError(`'${typeName(obj)}' object is not subscriptable`);
  const getItem = obj.getItem.bind(obj);
  const pick = (len: number): unknown => {
    const items = sliceIndices(len, start, stop, st).map((i) => {
      try {
        return getItem(i);
      } catch (err) {
        throw hostError(err);
      }
    });
    const own = (xs: unknown[]): unknown[] => {
      const out = xs.filter((x) => x !== undefined && x !== UNDEFINED);
      OWNED.add(out);
      return out;
    };
    return items.some((x) => x instanceof Promise) ? Promise.all(items).then(own, (err: unknown) => Promise.reject(hostError(err))) : own(items);
  };
  let n: number | Promise<number>;
  try {
    n = obj.length();
  } catch (err) {
    throw hostError(err);
  }
  return n instanceof Promise ? n.then(pick, (err: unknown) => Promise.reject(hostError(err))) : pick(n);
}

/** Python slice semantics on lists, tuples and strings (and host sequences, see sliceHost). */
export function sliceValue(obj: unknown, start: unknown, stop: unknown, step: unknown): unknown {
  if (isUndefined(obj)) throw undefinedFail(obj);
  const st = sliceIndex(step) ?? 1;
  if (st === 0) throw typeError('slice step cannot be zero');
  let seq: ArrayLike<unknown>;
  let isString = false;
  if (Array.isArray(obj)) seq = obj;
  else if (isStr(obj)) {
    const s = strValue(obj);
    seq = hasAstral(s) ? Array.from(s) : s;
    isString = true;
  } else if (isTemplateObject(obj)) return sliceHost(obj, start, stop, st);
  else throw typeError(`'${typeName(obj)}' object is not subscriptable`);
  const out: unknown[] = sliceIndices(seq.length, start, stop, st).map((i) => seq[i]);
  if (isString) return out.join('');
  if (TUPLES.has(obj as unknown[])) TUPLES.add(out);
  else OWNED.add(out);
  return out;
}

/** Calls a template value: only engine objects (macros, registered functions, bound methods) are callable. */
export function callValue(fn: unknown, args: unknown[], kwargs: Kwargs, state: RenderState): unknown {
  if (fn instanceof PyObject && fn.isCallable()) return fn.call(args, kwargs, state);
  if (fn instanceof Undefined) throw fn.fail();
  if (fn === undefined || fn === UNDEFINED) throw undefinedFail(fn);
  throw typeError(`'${typeName(fn)}' object is not callable`);
}

/** `obj.name(args)` without allocating a bound method. */
export function callMethod(obj: unknown, name: string, args: unknown[], kwargs: Kwargs, state: RenderState): unknown {
  if (obj instanceof Undefined || obj === undefined || obj === UNDEFINED) throw undefinedFail(obj);
  if (isUnsafeName(name)) return callFound(getAttr(obj, name), args, kwargs, state);
  if (typeof obj === 'object' && obj !== null) {
    if ((obj as { [TEMPLATE_OBJECT]?: unknown })[TEMPLATE_OBJECT] === true) {
      const o = obj as TemplateObject;
      if (!o.callMethod) return callFound(hostAttr(o, name), args, kwargs, state);
      let v: unknown;
      try {
        v = o.callMethod(name, args, { ...kwargs });
      } catch (err) {
        if (err instanceof TemplateError) throw err;
        throw typeError(`'${name}' is not callable on this object: ${err instanceof Error ? err.message : String(err)}`);
      }
      return v === undefined || v === UNDEFINED || typeof v === 'function' ? nothingReturned(name, v) : v;
    }
    if (obj instanceof PyObject) {
      const m = obj.getAttr(name);
      if (m === undefined) throw missingAttr(obj, name).fail();
      return callValue(m, args, kwargs, state);
    }
  }
  if (hasBuiltinMethod(obj, name)) return callBuiltinMethod(obj, name, args, kwargs, state);
  return callFound(getAttr(obj, name), args, kwargs, state);
}

/** Calls the attribute found (once it resolves). Kept out of callMethod so its calls allocate no closure context. */
function callFound(m: unknown, args: unknown[], kwargs: Kwargs, state: RenderState): unknown {
  return thenMaybe(m, (x) => callValue(x, args, kwargs, state));
}

function nothingReturned(name: string, v: unknown): unknown {
  return fromHost(v, () => `'${name}' returned nothing`);
}

export function thenMaybe<T>(v: unknown, f: (x: unknown) => T): T | Promise<T> {
  return v instanceof Promise ? v.then(f) : f(v);
}

// ------------------------------------------------------------------------------------ arithmetic

function binopError(op: string, a: unknown, b: unknown): TemplateError {
  if (isUndefined(a)) return undefinedFail(a);
  if (isUndefined(b)) return undefinedFail(b);
  if (op === '+' && isStr(a)) return typeError(`can only concatenate str (not "${typeName(b)}") to str`);
  if (op === '+' && Array.isArray(a) && !TUPLES.has(a))
    return typeError(`can only concatenate list (not "${typeName(b)}") to list`);
  if (op === '+' && Array.isArray(a)) return typeError(`can only concatenate tuple (not "${typeName(b)}") to tuple`);
  return typeError(`unsupported operand type(s) for ${op}: '${typeName(a)}' and '${typeName(b)}'`);
}

/** int op int stays int; anything with a float is a float (wrapped when integral so it prints "2.0"). */
function numResult(a: unknown, b: unknown, r: number): number | PyFloat {
  return isFloat(a) || isFloat(b) ? mkFloat(r) : r;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&#34;' : '&#39;',
  );
}
export function escape(v: unknown): Markup {
  if (v instanceof Markup) return v;
  return new Markup(escapeHtml(toStr(v)));
}

/** Both operands are ints (number, bigint or bool) and at least one is not a safe number: exact arithmetic. */
function bigIntOperands(a: unknown, b: unknown): boolean {
  return !isFloat(a) && !isFloat(b) && (typeof a === 'bigint' || typeof b === 'bigint' || !Number.isSafeInteger(toNumber(a)) || !Number.isSafeInteger(toNumber(b)));
}

export function add(a: unknown, b: unknown): unknown {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b;
    if (Number.isInteger(a) && Number.isInteger(b)) return Number.isSafeInteger(r) ? r : bigOrNumber(BigInt(a) + BigInt(b));
    return mkFloat(r);
  }
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  if (isNumeric(a) && isNumeric(b)) {
    if (bigIntOperands(a, b)) return bigOrNumber(toBigInt(a) + toBigInt(b));
    return numResult(a, b, toNumber(a) + toNumber(b));
  }
  if (isStr(a) && isStr(b)) {
    if (a instanceof Markup || b instanceof Markup) return new Markup(escape(a).s + escape(b).s);
    return strValue(a) + strValue(b);
  }
  if (Array.isArray(a) && Array.isArray(b) && TUPLES.has(a) === TUPLES.has(b)) {
    const out = a.concat(b);
    if (TUPLES.has(a)) TUPLES.add(out);
    else OWNED.add(out);
    return out;
  }
  throw binopError('+', a, b);
}

export function sub(a: unknown, b: unknown): unknown {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a - b;
    if (Number.isInteger(a) && Number.isInteger(b)) return Number.isSafeInteger(r) ? r : bigOrNumber(BigInt(a) - BigInt(b));
    return mkFloat(r);
  }
  if (isNumeric(a) && isNumeric(b)) {
    if (bigIntOperands(a, b)) return bigOrNumber(toBigInt(a) - toBigInt(b));
    return numResult(a, b, toNumber(a) - toNumber(b));
  }
  throw binopError('-', a, b);
}

function repeat(seq: unknown, n: number, state: RenderState): unknown {
  const count = Math.max(0, n);
  if (isStr(seq)) {
    const s = strValue(seq);
    state.checkSize(s.length * count);
    return seq instanceof Markup ? new Markup(s.repeat(count)) : s.repeat(count);
  }
  const arr = seq as unknown[];
  if (arr.length * count > state.limits.maxRangeItems * 10)
    throw new TemplateError('limit', `list repetition of ${arr.length * count} items exceeds the limit`);
  const out: unknown[] = [];
  for (let i = 0; i < count; i++) for (const x of arr) out.push(x);
  if (TUPLES.has(arr)) TUPLES.add(out);
  else OWNED.add(out);
  return out;
}

export function mul(a: unknown, b: unknown, state: RenderState): unknown {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a * b;
    if (Number.isInteger(a) && Number.isInteger(b)) {
      if (Number.isSafeInteger(r)) return r === 0 ? 0 : r;
      return bigOrNumber(BigInt(a) * BigInt(b));
    }
    return mkFloat(r);
  }
  if (isNumeric(a) && isNumeric(b)) {
    if (bigIntOperands(a, b)) {
      const x = toBigInt(a);
      const y = toBigInt(b);
      // Repeated squaring doubles the size each step: bounded like **, before the work is done.
      if (bitLength(x) + bitLength(y) > MAX_POW_BITS) throw limitError(`integer result of * exceeds the limit of ${MAX_POW_BITS} bits`);
      return bigOrNumber(x * y);
    }
    return numResult(a, b, toNumber(a) * toNumber(b));
  }
  const intLike = (v: unknown): boolean => isInt(v) || typeof v === 'boolean';
  if ((isStr(a) || Array.isArray(a)) && intLike(b)) return repeat(a, toNumber(b), state);
  if ((isStr(b) || Array.isArray(b)) && intLike(a)) return repeat(b, toNumber(a), state);
  if ((isStr(a) || Array.isArray(a)) && isNumeric(b))
    throw typeError(`can't multiply sequence by non-int of type '${typeName(b)}'`);
  throw binopError('*', a, b);
}

export function div(a: unknown, b: unknown): unknown {
  if (isNumeric(a) && isNumeric(b)) {
    const y = toNumber(b);
    if (y === 0) throw typeError('division by zero');
    if (bigIntOperands(a, b)) return mkFloat(bigTrueDiv(toBigInt(a), toBigInt(b)));
    return mkFloat(toNumber(a) / y);
  }
  throw binopError('/', a, b);
}

export function floordiv(a: unknown, b: unknown): unknown {
  if (isNumeric(a) && isNumeric(b)) {
    const y = toNumber(b);
    const float = isFloat(a) || isFloat(b);
    if (y === 0) throw typeError(float ? 'float floor division by zero' : 'integer division or modulo by zero');
    if (bigIntOperands(a, b)) {
      const x = toBigInt(a);
      const d = toBigInt(b);
      const q = x / d;
      // BigInt division truncates; Python floors.
      return bigOrNumber(q * d !== x && x < 0n !== d < 0n ? q - 1n : q);
    }
    const r = Math.floor(toNumber(a) / y);
    return float ? mkFloat(r) : r;
  }
  throw binopError('//', a, b);
}

export function mod(a: unknown, b: unknown, state: RenderState): unknown {
  if (isStr(a)) {
    const s = percentFormat(strValue(a), b, state.limits.maxOutputBytes);
    return a instanceof Markup ? new Markup(s) : s;
  }
  if (isNumeric(a) && isNumeric(b)) {
    const x = toNumber(a);
    const y = toNumber(b);
    const float = isFloat(a) || isFloat(b);
    if (y === 0) throw typeError(float ? 'float modulo' : 'integer division or modulo by zero');
    if (bigIntOperands(a, b)) {
      const d = toBigInt(b);
      let r = toBigInt(a) % d;
      // BigInt remainder takes the dividend's sign; Python's takes the divisor's.
      if (r !== 0n && r < 0n !== d < 0n) r += d;
      return bigOrNumber(r);
    }
    let r = x % y;
    if (r !== 0 && r < 0 !== y < 0) r += y;
    if (float && r === 0 && y < 0) r = -0;
    return float ? mkFloat(r) : r;
  }
  throw binopError('%', a, b);
}

/** Largest int a template may build by `**` or `*`: Python would compute any size, but a result this size
 *  (about 1.2 million digits, which Python could not even print) is beyond what a render should spend time on. */
const MAX_POW_BITS = 4_000_000;
function bitLength(x: bigint): number {
  return (x < 0n ? -x : x).toString(16).length * 4;
}
function bigPow(x: bigint, y: bigint): number | bigint {
  if (x === 0n || x === 1n) return Number(x);
  if (x === -1n) return y % 2n === 0n ? 1 : -1;
  const bits = (x < 0n ? -x : x).toString(2).length;
  if (Number(y) * (bits - 1) > MAX_POW_BITS) throw limitError(`integer result of ** exceeds the limit of ${MAX_POW_BITS} bits`);
  return bigOrNumber(x ** y);
}
/** a / b for big ints, correctly rounded like Python's int true division (for the common sizes). */
function bigTrueDiv(a: bigint, b: bigint): number {
  const q = a / b;
  const r = a % b;
  // The integer part converts with one rounding; the remainder adds the fraction where it is still visible.
  return Number(q) + Number(r) / Number(b);
}

export function pow(a: unknown, b: unknown): unknown {
  if (isNumeric(a) && isNumeric(b)) {
    const x = toNumber(a);
    const y = toNumber(b);
    if (x === 0 && y < 0) throw typeError('0.0 cannot be raised to a negative power');
    if (isFloat(a) || isFloat(b) || y < 0) {
      if (x < 0 && !Number.isInteger(y)) throw typeError('complex results are not supported');
      return mkFloat(Math.pow(x, y));
    }
    const r = Math.pow(x, y);
    // Math.pow is only trusted where every step is exact; anything larger is computed exactly.
    if (typeof a !== 'bigint' && Math.abs(r) < 2 ** 31) return r;
    return bigPow(toBigInt(a), toBigInt(b));
  }
  throw binopError('**', a, b);
}

export function neg(a: unknown): unknown {
  if (typeof a === 'number') return Number.isInteger(a) ? (a === 0 ? 0 : -a) : -a;
  if (typeof a === 'bigint') return -a;
  if (typeof a === 'boolean') return a ? -1 : 0;
  if (a instanceof PyFloat) return new PyFloat(-a.value);
  if (isUndefined(a)) throw undefinedFail(a);
  throw typeError(`bad operand type for unary -: '${typeName(a)}'`);
}

export function pos(a: unknown): unknown {
  if (typeof a === 'boolean') return a ? 1 : 0;
  if (isNumeric(a)) return a;
  if (isUndefined(a)) throw undefinedFail(a);
  throw typeError(`bad operand type for unary +: '${typeName(a)}'`);
}

/** `item in container`. Synchronous for data; host iterables are materialized by the caller. */
export function contains(container: unknown, item: unknown): boolean {
  if (isStr(container)) {
    if (!isStr(item)) {
      if (isUndefined(item)) throw undefinedFail(item);
      throw typeError(`'in <string>' requires string as left operand, not ${typeName(item)}`);
    }
    return strValue(container).includes(strValue(item));
  }
  if (Array.isArray(container)) {
    for (const x of container) if (pyEquals(x, item)) return true;
    return false;
  }
  if (isDict(container)) return dictHas(container, item);
  if (isUndefined(container)) return false;
  throw typeError(`argument of type '${typeName(container)}' is not iterable`);
}

/** What a for loop walks: arrays as they are, async host iterables lazily. */
export function iterable(v: unknown): unknown[] | AsyncIterable<unknown> {
  if (Array.isArray(v)) return v;
  if (typeof v === 'string') return hasAstral(v) ? Array.from(v) : v.split('');
  if (v instanceof Markup) return Array.from(v.s);
  if (v instanceof Map) return dictKeys(v);
  if (v instanceof Undefined || v === undefined || v === UNDEFINED) return [];
  if (isTemplateObject(v)) {
    if (!v.iterate) throw typeError(`'${hostName(v)}' object is not iterable`);
    let it: Iterable<unknown> | AsyncIterable<unknown>;
    try {
      it = v.iterate();
    } catch (err) {
      throw hostError(err);
    }
    if (Array.isArray(it)) return it;
    if (typeof it === 'object' && it !== null && Symbol.asyncIterator in it) return it as AsyncIterable<unknown>;
    return Array.from(it as Iterable<unknown>);
  }
  if (isPlainObject(v)) return Object.keys(v);
  if (v instanceof PyObject) {
    const items = v.getAttr('__iter_items__');
    if (Array.isArray(items)) return items;
  }
  throw typeError(`'${typeName(v)}' object is not iterable`);
}

/** Materializes any iterable value into an array (awaiting async host iterables). */
export function toList(v: unknown, state?: RenderState): unknown[] | Promise<unknown[]> {
  const it = iterable(v);
  if (Array.isArray(it)) return it;
  return (async () => {
    const out: unknown[] = [];
    for await (const x of it) {
      out.push(x);
      if (state) {
        const y = state.tick();
        if (y) await y;
      }
    }
    return out;
  })();
}

/** length of a value as the `length` filter sees it. */
export function lengthOf(v: unknown): number | Promise<number> {
  if (typeof v === 'string') return hasAstral(v) ? Array.from(v).length : v.length;
  if (v instanceof Markup) return Array.from(v.s).length;
  if (Array.isArray(v)) return v.length;
  if (v instanceof Map) return v.size;
  if (isUndefined(v)) return 0;
  if (isTemplateObject(v)) {
    if (v.length) {
      try {
        return v.length();
      } catch (err) {
        throw hostError(err);
      }
    }
    return thenMaybe(toList(v), (l) => (l as unknown[]).length);
  }
  if (isPlainObject(v)) return Object.keys(v).length;
  throw typeError(`object of type '${typeName(v)}' has no len()`);
}

export { EMPTY_KWARGS };
