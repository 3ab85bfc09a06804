// Methods of built-in values (str, list, tuple, dict) as templates call them, with Python semantics.
// Mutating methods work only on lists/dicts the template built itself (OWNED lists, Map dicts): context data is
// read-only, so a template cannot change what the caller handed it.
import { securityError, typeError } from './errors.ts';
import { strFormat } from './format.ts';
import {
  cpLength,
  pyCapitalize,
  pyCenter,
  pyCount,
  pyIs,
  pyReplace,
  pyRsplit,
  pySplit,
  pySplitlines,
  pyStrip,
  pyTitle,
  pyZfill,
} from './pystr.ts';
import type { RenderState } from './state.ts';
import {
  type Kwargs,
  Markup,
  OWNED,
  TUPLES,
  VIEWS,
  dictEntries,
  dictGet,
  dictHas,
  dictKeys,
  isDict,
  isNumeric,
  isPlainObject,
  isStr,
  isUndefined,
  dictDelete,
  dictSet,
  newDict,
  pyCompare,
  pyEquals,
  repr,
  strValue,
  toNumber,
  toStr,
  truthy,
  tuple,
  typeName,
  Undefined,
  undefinedFail,
} from './values.ts';

const STR_METHODS = new Set([
  'upper', 'lower', 'strip', 'lstrip', 'rstrip', 'split', 'rsplit', 'splitlines', 'startswith', 'endswith',
  'replace', 'join', 'format', 'format_map', 'title', 'capitalize', 'center', 'ljust', 'rjust', 'zfill', 'count',
  'find', 'rfind', 'index', 'rindex', 'partition', 'rpartition', 'isdigit', 'isalpha', 'isalnum', 'isspace',
  'islower', 'isupper', 'istitle', 'isdecimal', 'isnumeric', 'swapcase', 'casefold', 'removeprefix',
  'removesuffix', 'expandtabs',
]);
const LIST_METHODS = new Set(['index', 'count', 'append', 'extend', 'insert', 'pop', 'remove', 'sort', 'reverse', 'clear', 'copy']);
const TUPLE_METHODS = new Set(['index', 'count']);
const DICT_METHODS = new Set(['items', 'keys', 'values', 'get', 'update', 'pop', 'setdefault', 'copy', 'clear', 'popitem']);

export function hasBuiltinMethod(obj: unknown, name: string): boolean {
  if (typeof obj === 'string' || obj instanceof Markup) return STR_METHODS.has(name);
  if (Array.isArray(obj)) return TUPLES.has(obj) ? TUPLE_METHODS.has(name) : LIST_METHODS.has(name);
  if (obj instanceof Map || isPlainObject(obj)) return DICT_METHODS.has(name);
  return false;
}

function arg(args: unknown[], kwargs: Kwargs, i: number, name: string, dflt: unknown): unknown {
  if (i < args.length) return args[i];
  if (Object.prototype.hasOwnProperty.call(kwargs, name)) return kwargs[name];
  return dflt;
}
function strArg(v: unknown, what: string): string {
  if (isStr(v)) return strValue(v);
  if (isUndefined(v)) throw undefinedFail(v);
  throw typeError(`${what} must be str, not ${typeName(v)}`);
}
function optStr(v: unknown, what: string): string | null {
  return v === null || v === undefined ? null : strArg(v, what);
}
function intArg(v: unknown, what: string): number {
  if ((typeof v === 'number' && Number.isInteger(v)) || typeof v === 'boolean') return toNumber(v);
  if (isUndefined(v)) throw undefinedFail(v);
  throw typeError(`'${typeName(v)}' object cannot be interpreted as an integer (${what})`);
}
/** Python's optional start/end arguments of find/count/startswith. */
function window(s: string, start: unknown, end: unknown): [number, number] {
  const n = s.length;
  const norm = (v: unknown, d: number): number => {
    if (v === null || v === undefined) return d;
    let x = intArg(v, 'slice index');
    if (x < 0) x = Math.max(0, x + n);
    return Math.min(x, n);
  };
  return [norm(start, 0), norm(end, n)];
}

function requireOwnedList(obj: unknown[], name: string): void {
  if (!OWNED.has(obj)) throw securityError(`cannot call '${name}' on a list the template did not build`);
}
function requireOwnedDict(obj: unknown, name: string): asserts obj is Map<unknown, unknown> {
  if (!(obj instanceof Map)) throw securityError(`cannot call '${name}' on a dict the template did not build`);
}

/** A string inserted by Markup.format: escaped for HTML unless already safe. */
function escapeArg(v: unknown): unknown {
  if (v instanceof Markup || !isStr(v)) return v;
  return new Markup(
    strValue(v).replace(/[&<>"']/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&#34;' : '&#39;')),
  );
}

function strMethod(self: string | Markup, name: string, args: unknown[], kwargs: Kwargs, state: RenderState): unknown {
  const s = strValue(self);
  const a = (i: number, n: string, d: unknown): unknown => arg(args, kwargs, i, n, d);
  switch (name) {
    case 'upper':
      return s.toUpperCase();
    case 'lower':
      return s.toLowerCase();
    case 'casefold':
      return s.toLowerCase();
    case 'swapcase':
      return Array.from(s, (c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
    case 'strip':
    case 'lstrip':
    case 'rstrip':
      return pyStrip(s, optStr(a(0, 'chars', null), 'chars'), name !== 'rstrip', name !== 'lstrip');
    case 'split':
    case 'rsplit': {
      const sep = optStr(a(0, 'sep', null), 'sep');
      if (sep === '') throw typeError('empty separator');
      const max = intArg(a(1, 'maxsplit', -1), 'maxsplit');
      return OWNED_LIST(name === 'split' ? pySplit(s, sep, max) : pyRsplit(s, sep, max));
    }
    case 'splitlines':
      return OWNED_LIST(pySplitlines(s, Boolean(a(0, 'keepends', false))));
    case 'startswith':
    case 'endswith': {
      const p = a(0, 'prefix', undefined);
      const [st, en] = window(s, a(1, 'start', null), a(2, 'end', null));
      const w = s.slice(st, en);
      const cands = Array.isArray(p) && TUPLES.has(p) ? p : [p];
      return cands.some((c) => {
        const x = strArg(c, name === 'startswith' ? 'startswith first arg' : 'endswith first arg');
        return name === 'startswith' ? w.startsWith(x) : w.endsWith(x);
      });
    }
    case 'removeprefix': {
      const p = strArg(a(0, 'prefix', ''), 'prefix');
      return p && s.startsWith(p) ? s.slice(p.length) : s;
    }
    case 'removesuffix': {
      const p = strArg(a(0, 'suffix', ''), 'suffix');
      return p && s.endsWith(p) ? s.slice(0, -p.length) : s;
    }
    case 'replace': {
      const out = pyReplace(s, strArg(a(0, 'old', undefined), 'replace() argument 1'), strArg(a(1, 'new', undefined), 'replace() argument 2'), intArg(a(2, 'count', -1), 'count'));
      state.checkSize(out.length);
      return out;
    }
    case 'join': {
      const items = a(0, 'iterable', undefined);
      const list = Array.isArray(items) ? items : isStr(items) ? Array.from(strValue(items)) : isDict(items) ? dictKeys(items) : null;
      if (!list) throw typeError('can only join an iterable');
      list.forEach((x, i) => {
        if (!isStr(x)) throw typeError(`sequence item ${i}: expected str instance, ${typeName(x)} found`);
      });
      const out = list.map((x) => strValue(x as string)).join(s);
      return self instanceof Markup ? new Markup(out) : out;
    }
    case 'format':
    case 'format_map': {
      let kw = name === 'format_map' ? mappingToKwargs(a(0, 'mapping', undefined)) : kwargs;
      let positional = name === 'format' ? args : [];
      // Markup.format escapes what it inserts (markupsafe's EscapeFormatter); safe strings go in as they are.
      // Escaped before formatting, so a width given in the field counts the escaped text.
      if (self instanceof Markup) {
        positional = positional.map(escapeArg);
        kw = Object.fromEntries(Object.entries(kw).map(([k, v]) => [k, escapeArg(v)]));
      }
      const out = strFormat(s, positional, kw, fieldAccess, state.limits.maxOutputBytes);
      state.checkSize(out.length);
      return self instanceof Markup ? new Markup(out) : out;
    }
    case 'title':
      return pyTitle(s);
    case 'capitalize':
      return pyCapitalize(s);
    case 'center':
    case 'ljust':
    case 'rjust': {
      const width = intArg(a(0, 'width', undefined), 'width');
      state.checkSize(width);
      const fill = strArg(a(1, 'fillchar', ' '), 'fillchar');
      if (cpLength(fill) !== 1) throw typeError('The fill character must be exactly one character long');
      const len = cpLength(s);
      if (name === 'center') return pyCenter(s, width, fill);
      if (width <= len) return s;
      return name === 'ljust' ? s + fill.repeat(width - len) : fill.repeat(width - len) + s;
    }
    case 'zfill': {
      const width = intArg(a(0, 'width', undefined), 'width');
      state.checkSize(width);
      return pyZfill(s, width);
    }
    case 'expandtabs': {
      const size = intArg(a(0, 'tabsize', 8), 'tabsize');
      let col = 0;
      let out = '';
      for (const c of s) {
        if (c === '\t') {
          const n = size > 0 ? size - (col % size) : 0;
          out += ' '.repeat(n);
          col += n;
        } else {
          out += c;
          col = c === '\n' || c === '\r' ? 0 : col + 1;
        }
      }
      return out;
    }
    case 'count': {
      const [st, en] = window(s, a(1, 'start', null), a(2, 'end', null));
      return pyCount(s.slice(st, en), strArg(a(0, 'sub', undefined), 'must be str'));
    }
    case 'find':
    case 'index':
    case 'rfind':
    case 'rindex': {
      const sub = strArg(a(0, 'sub', undefined), 'must be str');
      const rawStart = a(1, 'start', null);
      if (rawStart !== null && intArg(rawStart, 'start') > s.length) {
        if (name.endsWith('index')) throw typeError('substring not found');
        return -1;
      }
      const [st, en] = window(s, rawStart, a(2, 'end', null));
      const w = s.slice(st, en);
      const k = name[0] === 'r' ? w.lastIndexOf(sub) : w.indexOf(sub);
      if (k === -1 || st > en) {
        if (name.endsWith('index')) throw typeError('substring not found');
        return -1;
      }
      return k + st;
    }
    case 'partition':
    case 'rpartition': {
      const sep = strArg(a(0, 'sep', undefined), 'must be str');
      if (!sep) throw typeError('empty separator');
      const k = name === 'partition' ? s.indexOf(sep) : s.lastIndexOf(sep);
      if (k === -1) return name === 'partition' ? tuple([s, '', '']) : tuple(['', '', s]);
      return tuple([s.slice(0, k), sep, s.slice(k + sep.length)]);
    }
    default:
      return pyIs(s, name);
  }
}

function OWNED_LIST(items: unknown[]): unknown[] {
  OWNED.add(items);
  return items;
}

function mappingToKwargs(m: unknown): Kwargs {
  if (!isDict(m)) throw typeError('format_map() argument must be a mapping');
  const out = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of dictEntries(m)) out[toStr(k)] = v;
  return out;
}

// str.format field access ({0.name}, {0[key]}): data only, sandboxed like attribute access.
function fieldAccess(obj: unknown, key: string | number, isAttr: boolean): unknown {
  if (obj instanceof Undefined) throw obj.fail();
  if (typeof key === 'string' && (key.startsWith('_') || key === 'constructor' || key === 'prototype'))
    return new Undefined(`access to attribute '${key}' of '${typeName(obj)}' object is unsafe.`, 'security');
  let v: unknown;
  if (isDict(obj) && !isAttr) v = dictGet(obj, key);
  else if (isDict(obj)) v = dictGet(obj, key);
  else if (Array.isArray(obj) && typeof key === 'number') v = obj[key];
  if (v === undefined || typeof v === 'function' || v instanceof Promise)
    throw typeError(`${isAttr ? 'attribute' : 'item'} ${repr(key)} is not available in format()`);
  return v;
}

function listMethod(self: unknown[], name: string, args: unknown[], kwargs: Kwargs): unknown {
  const a = (i: number, n: string, d: unknown): unknown => arg(args, kwargs, i, n, d);
  switch (name) {
    case 'index': {
      const x = a(0, 'value', undefined);
      let from = intArg(a(1, 'start', 0), 'start');
      let to = intArg(a(2, 'stop', self.length), 'stop');
      if (from < 0) from = Math.max(0, from + self.length);
      if (to < 0) to = Math.max(0, to + self.length);
      for (let i = from; i < Math.min(to, self.length); i++) if (pyEquals(self[i], x)) return i;
      throw typeError(`${repr(x)} is not in list`);
    }
    case 'count': {
      const x = a(0, 'value', undefined);
      return self.filter((y) => pyEquals(y, x)).length;
    }
    case 'copy':
      return OWNED_LIST(self.slice());
  }
  requireOwnedList(self, name);
  switch (name) {
    case 'append':
      self.push(a(0, 'object', undefined));
      return null;
    case 'extend': {
      const items = a(0, 'iterable', undefined);
      if (Array.isArray(items)) self.push(...items);
      else if (isStr(items)) self.push(...Array.from(strValue(items)));
      else if (isDict(items)) self.push(...dictKeys(items));
      else throw typeError(`'${typeName(items)}' object is not iterable`);
      return null;
    }
    case 'insert': {
      let i = intArg(a(0, 'index', undefined), 'index');
      if (i < 0) i = Math.max(0, i + self.length);
      self.splice(Math.min(i, self.length), 0, a(1, 'object', undefined));
      return null;
    }
    case 'pop': {
      if (!self.length) throw typeError('pop from empty list');
      let i = intArg(a(0, 'index', -1), 'index');
      if (i < 0) i += self.length;
      if (i < 0 || i >= self.length) throw typeError('pop index out of range');
      return self.splice(i, 1)[0];
    }
    case 'remove': {
      const x = a(0, 'value', undefined);
      const i = self.findIndex((y) => pyEquals(y, x));
      if (i === -1) throw typeError('list.remove(x): x not in list');
      self.splice(i, 1);
      return null;
    }
    case 'sort': {
      // key= cannot be expressed in a template (no lambdas); reverse keeps equal items in order like Python.
      const rev = truthy(a(1, 'reverse', false));
      const sorted = stableSort(self, rev ? (x, y) => pyCompare(y, x) : (x, y) => pyCompare(x, y));
      self.splice(0, self.length, ...sorted);
      return null;
    }
    case 'reverse':
      self.reverse();
      return null;
    case 'clear':
      self.length = 0;
      return null;
  }
  throw typeError(`'list' object has no attribute '${name}'`);
}

export function stableSort<T>(items: T[], cmp: (a: T, b: T) => number): T[] {
  return items.slice().sort(cmp);
}

function view(items: unknown[], kind: string): unknown[] {
  VIEWS.set(items, kind);
  return items;
}

function dictMethod(self: Map<unknown, unknown> | Record<string, unknown>, name: string, args: unknown[], kwargs: Kwargs): unknown {
  const a = (i: number, n: string, d: unknown): unknown => arg(args, kwargs, i, n, d);
  switch (name) {
    case 'items':
      return view(dictEntries(self).map((e) => tuple(e)), 'dict_items');
    case 'keys':
      return view(dictKeys(self), 'dict_keys');
    case 'values':
      return view(
        dictEntries(self).map((e) => e[1]),
        'dict_values',
      );
    case 'get': {
      const k = args[0];
      return dictHas(self, k) ? dictGet(self, k) : (args.length > 1 ? args[1] : null);
    }
    case 'copy':
      return newDict(dictEntries(self));
  }
  requireOwnedDict(self, name);
  switch (name) {
    case 'update': {
      const other = args[0];
      if (other !== undefined) {
        if (isDict(other)) for (const [k, v] of dictEntries(other)) dictSet(self, k, v);
        else if (Array.isArray(other))
          for (const pair of other) {
            if (!Array.isArray(pair) || pair.length !== 2) throw typeError('dictionary update sequence element has wrong length');
            dictSet(self, pair[0], pair[1]);
          }
        else throw typeError(`'${typeName(other)}' object is not iterable`);
      }
      for (const k of Object.keys(kwargs)) dictSet(self, k, kwargs[k]);
      return null;
    }
    case 'pop': {
      const removed = dictDelete(self, args[0]);
      if (removed) return removed[1];
      if (args.length > 1) return args[1];
      throw typeError(`KeyError: ${repr(args[0])}`);
    }
    case 'popitem': {
      if (!self.size) throw typeError("'popitem(): dictionary is empty'");
      const lastKey = Array.from(self.keys()).pop();
      return tuple(dictDelete(self, lastKey) as [unknown, unknown]);
    }
    case 'setdefault': {
      if (!dictHas(self, args[0])) dictSet(self, args[0], args.length > 1 ? args[1] : null);
      return dictGet(self, args[0]);
    }
    case 'clear':
      for (const k of Array.from(self.keys())) dictDelete(self, k);
      return null;
  }
  throw typeError(`'dict' object has no attribute '${name}'`);
}

// Jinja2's sandbox._mutable_spec: what ImmutableSandboxedEnvironment refuses.
const MUTATING_LIST = new Set(['append', 'clear', 'pop', 'reverse', 'insert', 'sort', 'extend', 'remove']);
const MUTATING_DICT = new Set(['clear', 'pop', 'popitem', 'setdefault', 'update']);

export function callBuiltinMethod(obj: unknown, name: string, args: unknown[], kwargs: Kwargs, state: RenderState): unknown {
  if (typeof obj === 'string' || obj instanceof Markup) return strMethod(obj, name, args, kwargs, state);
  if (state.sandbox.immutable && (Array.isArray(obj) ? MUTATING_LIST : MUTATING_DICT).has(name) && (Array.isArray(obj) || obj instanceof Map || isPlainObject(obj))) {
    throw securityError(`access to attribute '${name}' of '${typeName(obj)}' object is unsafe.`);
  }
  if (Array.isArray(obj)) return listMethod(obj, name, args, kwargs);
  if (obj instanceof Map || isPlainObject(obj)) return dictMethod(obj, name, args, kwargs);
  throw typeError(`'${typeName(obj)}' object has no attribute '${name}'`);
}

export { isNumeric };
