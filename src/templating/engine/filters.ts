// Jinja2 3.1's built-in filters with Python semantics. Anything that reads attributes of items (sort by attribute,
// groupby, map, selectattr...) goes through the sandboxed getItem/getAttr and copes with Promises from host objects.
// Deviation: filters that return generators in Jinja2 (map, select, reject, batch, slice, unique...) return lists here.
import { REQUIRED, builtin } from './bind.ts';
import { TemplateError, limitError, typeError } from './errors.ts';
import { percentFormat } from './format.ts';
import { roundPy, toFixedPy } from './numfmt.ts';
import { add, callValue, escape, getAttr, getItem, lengthOf, sliceValue, thenMaybe, toList } from './ops.ts';
import { cpLength, pyCapitalize, pyCenter, pyReplace, pySplitlines, pyStrip } from './pystr.ts';
import type { FilterImpl, RenderState } from './state.ts';
import {
  MAX_INT_STR_DIGITS,
  bigOrNumber,
  toBigInt,
  truncToInt,
  EMPTY_KWARGS,
  GROUP_TUPLES,
  type Kwargs,
  Markup,
  OWNED,
  PyFloat,
  TUPLES,
  Undefined,
  dictEntries,
  isDict,
  isFloat,
  isNumeric,
  isPlainObject,
  isStr,
  isUndefined,
  mkFloat,
  pyCompare,
  pyEquals,
  repr,
  strValue,
  toNumber,
  toStr,
  truthy,
  tuple,
  typeName,
  undefinedFail,
  isTemplateObject,
} from './values.ts';


function owned(items: unknown[]): unknown[] {
  OWNED.add(items);
  return items;
}

function allMaybe(vals: unknown[]): unknown[] | Promise<unknown[]> {
  for (const v of vals) if (v instanceof Promise) return Promise.all(vals);
  return vals;
}
function mapMaybe(items: unknown[], fn: (x: unknown) => unknown): unknown[] | Promise<unknown[]> {
  return allMaybe(items.map(fn));
}
/** Runs `fn` on the materialized list of `value` (awaiting async host iterables only when needed). */
function withList(value: unknown, state: RenderState, fn: (items: unknown[]) => unknown): unknown {
  return thenMaybe(toList(value, state), (l) => {
    state.work((l as unknown[]).length);
    return fn(l as unknown[]);
  });
}

/** Jinja2's make_attrgetter: "a.b.0" walks items/attributes; case-insensitive variants lower strings. */
function attrGetter(attribute: unknown, lower = false, dflt: unknown = undefined): (item: unknown) => unknown {
  const parts: (string | number)[] =
    attribute === null || attribute === undefined
      ? []
      : typeof attribute === 'number'
        ? [attribute]
        : toStr(attribute)
            .split('.')
            .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  return (item) => {
    let acc: unknown = item;
    for (const p of parts) acc = thenMaybe(acc, (x) => getItem(x, p));
    return thenMaybe(acc, (v) => {
      if (dflt !== undefined && isUndefined(v)) v = dflt;
      return lower && isStr(v) ? strValue(v).toLowerCase() : v;
    });
  };
}

/** Python's round(int, negative ndigits): exact, ties to even. */
function roundIntHalfEven(x: bigint, p: number): number | bigint {
  if (-p > MAX_INT_STR_DIGITS * 2) return 0;
  const f = 10n ** BigInt(-p);
  const neg = x < 0n;
  const mag = neg ? -x : x;
  let q = mag / f;
  const r = mag % f;
  if (r * 2n > f || (r * 2n === f && q % 2n === 1n)) q += 1n;
  const out = q * f;
  return bigOrNumber(neg ? -out : out);
}

function sortKeyCompare(a: unknown, b: unknown): number {
  return pyCompare(a, b);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : toStr(v);
}

function intOf(v: unknown, what: string): number {
  if ((typeof v === 'number' && Number.isInteger(v)) || typeof v === 'boolean') return toNumber(v);
  // A big int argument (width, precision...) would exceed every limit anyway; as a number it fails clearly there.
  if (typeof v === 'bigint') return Number(v);
  if (isUndefined(v)) throw undefinedFail(v);
  throw typeError(`'${typeName(v)}' object cannot be interpreted as an integer (${what})`);
}

/** Python float(str) parsing. */
function parseFloatPy(s: string): number | null {
  const t = s.trim().replace(/(\d)_(?=\d)/g, '$1');
  if (/^[+-]?(\d+\.?\d*(e[+-]?\d+)?|\.\d+(e[+-]?\d+)?)$/i.test(t)) return Number(t);
  if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(t)) return NaN;
  return null;
}
function parseIntPy(s: string, base: number): number | bigint | null {
  let t = s.trim().replace(/(\w)_(?=\w)/g, '$1');
  let sign = 1;
  if (t.startsWith('-') || t.startsWith('+')) {
    if (t[0] === '-') sign = -1;
    t = t.slice(1);
  }
  const prefixes: Record<string, number> = { '0x': 16, '0o': 8, '0b': 2 };
  const pre = t.slice(0, 2).toLowerCase();
  if (base === 0) {
    base = prefixes[pre] ?? 10;
    if (base !== 10) t = t.slice(2);
    else if (/^0\d/.test(t)) return null;
  } else if (prefixes[pre] === base) t = t.slice(2);
  const digits = '0123456789abcdefghijklmnopqrstuvwxyz'.slice(0, base);
  if (!t || ![...t.toLowerCase()].every((c) => digits.includes(c))) return null;
  const n = sign * parseInt(t, base);
  if (Number.isSafeInteger(n)) return n === 0 ? 0 : n;
  // Beyond the safe range: exact, and like Python refuse more than 4300 digits in a non power-of-2 base.
  if ((base & (base - 1)) !== 0 && t.replace(/^0+/, '').length > MAX_INT_STR_DIGITS) return null;
  let b = 0n;
  const bb = BigInt(base);
  for (const c of t.toLowerCase()) b = b * bb + BigInt(digits.indexOf(c));
  return bigOrNumber(sign < 0 ? -b : b);
}

const TITLE_SPLIT = /([-\s({[<]+)/;

function sortValues(state: RenderState, items: unknown[], reverse: unknown, caseSensitive: unknown, attribute: unknown): unknown {
  const attrs = attribute === null || attribute === undefined ? [null] : typeof attribute === 'string' ? attribute.split(',') : [attribute];
  const getters = attrs.map((a) => attrGetter(a, !truthy(caseSensitive)));
  const keys = mapMaybe(items, (x) => allMaybe(getters.map((g) => g(x))));
  return thenMaybe(keys, (ks) => {
    const idx = items.map((_, i) => i);
    const k = ks as unknown[][];
    const rev = truthy(reverse);
    idx.sort((i, j) => {
      for (let a = 0; a < attrs.length; a++) {
        const c = sortKeyCompare(k[i][a], k[j][a]);
        if (c !== 0) return rev ? -c : c;
      }
      return 0;
    });
    return owned(idx.map((i) => items[i]));
  });
}

function minMax(state: RenderState, value: unknown, caseSensitive: unknown, attribute: unknown, sign: number): unknown {
  return withList(value, state, (items) => {
    if (!items.length) return new Undefined('No aggregated item, sequence was empty.');
    const g = attrGetter(attribute, !truthy(caseSensitive));
    return thenMaybe(mapMaybe(items, g), (ks) => {
      const keys = ks as unknown[];
      let best = 0;
      for (let i = 1; i < items.length; i++) if (pyCompare(keys[i], keys[best]) * sign > 0) best = i;
      return items[best];
    });
  });
}

function selectOrReject(state: RenderState, value: unknown, args: unknown[], kwargs: Kwargs, select: boolean, byAttr: boolean): unknown {
  // Jinja2 walks the value only `if seq:`: None, 0, False and '' give an empty result, not an error.
  if (!isTemplateObject(value) && !truthy(value)) return owned([]);
  return withList(value, state, (items) => {
    let getter: (x: unknown) => unknown = (x) => x;
    let rest = args;
    if (byAttr) {
      if (!rest.length) throw typeError('Missing parameter for attribute name');
      getter = attrGetter(rest[0]);
      rest = rest.slice(1);
    }
    let check: (x: unknown) => unknown;
    if (rest.length) {
      const testName = toStr(rest[0]);
      const test = state.registry.tests.get(testName);
      if (!test) throw new TemplateError('type', `No test named '${testName}'.`);
      const targs = rest.slice(1);
      check = (x) => test(state, x, targs, kwargs);
    } else check = (x) => x;
    const results = mapMaybe(items, (x) => thenMaybe(getter(x), check));
    return thenMaybe(results, (rs) => owned(items.filter((_, i) => truthy((rs as unknown[])[i]) === select)));
  });
}

// A port of Python's textwrap.TextWrapper as Jinja2's wordwrap configures it (expand_tabs and
// replace_whitespace off, drop_whitespace on), so chunking and hyphen breaks match byte for byte.
// textwrap's whitespace is ASCII only, unlike \s; \w and "letter" ([^\d\W]) are Unicode as in Python's re.
const TW_WS = '[\\t\\n\\x0b\\x0c\\r ]';
const TW_NWS = '[^\\t\\n\\x0b\\x0c\\r ]';
const TW_W = '[\\p{L}\\p{N}_]';
const TW_WP = '[\\p{L}\\p{N}_!"\'&.,?]';
const TW_LT = '[\\p{L}\\p{Nl}\\p{No}_]';
const WORDSEP = new RegExp(
  `(${TW_WS}+|(?<=${TW_WP})-{2,}(?=${TW_W})|${TW_NWS}+?(?:-(?:(?<=${TW_LT}{2}-)|(?<=${TW_LT}-${TW_LT}-))(?=${TW_LT}-?${TW_LT})|(?=${TW_WS}|$)|(?<=${TW_WP})(?=-{2,}${TW_W})))`,
  'u',
);
const WORDSEP_SIMPLE = new RegExp(`(${TW_WS}+)`, 'u');

function wrapLine(line: string, width: number, breakLong: boolean, breakOnHyphens: boolean): string[] {
  // Chunks as code point arrays: textwrap measures and slices by code point.
  const chunks = line
    .split(breakOnHyphens ? WORDSEP : WORDSEP_SIMPLE)
    .filter((c) => c !== '' && c !== undefined)
    .map((c) => Array.from(c));
  chunks.reverse();
  const isBlank = (c: string[]): boolean => c.join('').trim() === '';
  const lines: string[] = [];
  while (chunks.length) {
    const cur: string[][] = [];
    let curLen = 0;
    if (lines.length && isBlank(chunks[chunks.length - 1])) chunks.pop();
    while (chunks.length) {
      const l = chunks[chunks.length - 1].length;
      if (curLen + l > width) break;
      cur.push(chunks.pop() as string[]);
      curLen += l;
    }
    if (chunks.length && chunks[chunks.length - 1].length > width) {
      const spaceLeft = width < 1 ? 1 : width - curLen;
      if (breakLong) {
        const chunk = chunks[chunks.length - 1];
        let end = spaceLeft;
        if (breakOnHyphens && chunk.length > spaceLeft) {
          const hyphen = chunk.slice(0, spaceLeft).lastIndexOf('-');
          if (hyphen > 0 && chunk.slice(0, hyphen).some((c) => c !== '-')) end = hyphen + 1;
        }
        cur.push(chunk.slice(0, end));
        chunks[chunks.length - 1] = chunk.slice(end);
      } else if (!cur.length) cur.push(chunks.pop() as string[]);
    }
    if (cur.length && isBlank(cur[cur.length - 1])) cur.pop();
    if (cur.length) lines.push(cur.map((c) => c.join('')).join(''));
  }
  return lines;
}

function urlQuote(v: unknown, forQs: boolean): string {
  const bytes = new TextEncoder().encode(str(v));
  let out = '';
  for (const b of bytes) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9_.\-~]/.test(c) || (!forQs && c === '/')) out += c;
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return forQs ? out.replace(/%20/g, '+') : out;
}

function jsonDump(v: unknown, indent: string | null, level: number, seen: unknown[]): string {
  if (v === null) return 'null';
  if (isUndefined(v)) throw typeError('Object of type Undefined is not JSON serializable');
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number' || v instanceof PyFloat) {
    const n = toNumber(v);
    if (Number.isNaN(n)) return 'NaN';
    if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
    return toStr(v);
  }
  if (isStr(v)) {
    let s = '"';
    for (const ch of strValue(v)) {
      const c = ch.codePointAt(0) ?? 0;
      if (ch === '"') s += '\\"';
      else if (ch === '\\') s += '\\\\';
      else if (ch === '\n') s += '\\n';
      else if (ch === '\r') s += '\\r';
      else if (ch === '\t') s += '\\t';
      else if (ch === '\b') s += '\\b';
      else if (ch === '\f') s += '\\f';
      else if (c < 0x20 || c > 0x7e) {
        if (c > 0xffff) {
          const hi = Math.floor((c - 0x10000) / 0x400) + 0xd800;
          const lo = ((c - 0x10000) % 0x400) + 0xdc00;
          s += `\\u${hi.toString(16).padStart(4, '0')}\\u${lo.toString(16).padStart(4, '0')}`;
        } else s += `\\u${c.toString(16).padStart(4, '0')}`;
      } else s += ch;
    }
    return s + '"';
  }
  if (seen.includes(v)) throw typeError('Circular reference detected');
  const inner = [...seen, v];
  const nl = indent === null ? '' : '\n' + indent.repeat(level + 1);
  const close = indent === null ? '' : '\n' + indent.repeat(level);
  const sep = indent === null ? ', ' : ',';
  if (Array.isArray(v)) {
    if (!v.length) return '[]';
    return '[' + nl + v.map((x) => jsonDump(x, indent, level + 1, inner)).join(sep + nl) + close + ']';
  }
  if (isDict(v)) {
    const entries = dictEntries(v).map(([k, x]) => {
      let key: string;
      if (isStr(k)) key = strValue(k);
      else if (k === null) key = 'null';
      else if (typeof k === 'boolean') key = k ? 'true' : 'false';
      else if (isNumeric(k)) key = toStr(k);
      else throw typeError(`keys must be str, int, float, bool or None, not ${typeName(k)}`);
      return [key, x] as const;
    });
    // json.dumps(sort_keys=True) compares the original keys: mixing str and int keys is a TypeError there too
    const order = dictEntries(v).map((e) => e[0]);
    const idx = order.map((_, i) => i).sort((a, b) => pyCompare(order[a], order[b]));
    const sortedEntries = idx.map((i) => entries[i]);
    entries.length = 0;
    entries.push(...sortedEntries);
    if (!entries.length) return '{}';
    return '{' + nl + entries.map(([k, x]) => `${jsonDump(k, indent, level + 1, inner)}: ${jsonDump(x, indent, level + 1, inner)}`).join(sep + nl) + close + '}';
  }
  // Rows and row lists come from the database: tojson writes plain values only, so say how to get some.
  if (isTemplateObject(v)) throw typeError(`Object of type ${typeName(v)} is not JSON serializable: tojson writes strings, numbers, lists and mappings, so build one from the fields you need (e.g. {"name": d.name})`);
  throw typeError(`Object of type ${typeName(v)} is not JSON serializable`);
}

const DICT_METHOD_NAMES = new Set(['items', 'keys', 'values', 'get', 'update', 'pop', 'setdefault', 'copy', 'clear', 'popitem']);
function hasDictMethod(n: string): boolean {
  return DICT_METHOD_NAMES.has(n);
}

/** Python's pprint.pformat (width 80, dict keys sorted) for the data shapes templates print. */
function sortedRepr(v: unknown): string {
  if (isDict(v)) {
    const entries = dictEntries(v).sort((a, b) => safeCompare(a[0], b[0]));
    return `{${entries.map(([k, x]) => `${repr(k)}: ${sortedRepr(x)}`).join(', ')}}`;
  }
  if (Array.isArray(v) && !TUPLES.has(v)) return `[${v.map(sortedRepr).join(', ')}]`;
  if (Array.isArray(v)) return v.length === 1 ? `(${sortedRepr(v[0])},)` : `(${v.map(sortedRepr).join(', ')})`;
  return repr(v);
}
function safeCompare(a: unknown, b: unknown): number {
  try {
    return pyCompare(a, b);
  } catch {
    return 0;
  }
}
function pformat(v: unknown, indent: number): string {
  const flat = sortedRepr(v);
  if (flat.length + indent <= 80) return flat;
  if (Array.isArray(v) && v.length) {
    const [open, close] = TUPLES.has(v) ? ['(', ')'] : ['[', ']'];
    const pad = ' '.repeat(indent + 1);
    return open + v.map((x, i) => (i ? pad : '') + pformat(x, indent + 1)).join(',\n') + (TUPLES.has(v) && v.length === 1 ? ',' : '') + close;
  }
  if (isDict(v) && dictEntries(v).length) {
    const pad = ' '.repeat(indent + 1);
    const entries = dictEntries(v).sort((a, b) => safeCompare(a[0], b[0]));
    return '{' + entries.map(([k, x], i) => { const kr = repr(k) + ': '; return (i ? pad : '') + kr + pformat(x, indent + 1 + kr.length); }).join(',\n') + '}';
  }
  if (isStr(v) && flat.length + indent > 80) {
    const s = strValue(v);
    const parts = s.match(/\S*\s*/g)?.filter(Boolean) ?? [s];
    const lines: string[] = [];
    let cur = '';
    for (const p of parts) {
      if (cur && repr(cur + p).length + indent > 80) {
        lines.push(repr(cur));
        cur = p;
      } else cur += p;
    }
    if (cur) lines.push(repr(cur));
    if (lines.length > 1) return '(' + lines.join('\n' + ' '.repeat(indent + 1)) + ')';
  }
  return flat;
}

function striptags(s: string): string {
  let t = s.replace(/<!--[\s\S]*?(-->|$)/g, '').replace(/<[^>]*>/g, '');
  // MarkupSafe collapses whitespace before unescaping, so an &nbsp; survives as a character
  t = t.split(/[ \t\n\r\f\v\x1c-\x1f\x85\u2028\u2029]+/).filter(Boolean).join(' ');
  t = t.replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (m, e: string) => {
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\xa0' };
    if (e[0] === '#') {
      const cp = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
    }
    return named[e.toLowerCase()] ?? m;
  });
  return t;
}

/** The characters of Python's `\w` (str.isalnum or _), which Jinja2's patterns use, for a character class. */
const W = String.raw`\p{L}\p{N}_`;
// jinja2.utils._http_re and _email_re, as Jinja2 3.1 writes them (the first with re.IGNORECASE).
const URLIZE_HTTP_RE = new RegExp(
  String.raw`^((https?://|www\.)(([${W}%-]+\.)+)?([a-z]{2,63}|xn--[${W}%]{2,59})|([${W}%-]{2,63}\.)+(com|net|int|edu|gov|org|info|mil)|(https?://)((\d{1,3}(\.\d{1,3}){3})|(\[([\da-f]{0,4}:){2}([\da-f]{0,4}:?){1,6}\])))(?::\d{1,5})?(?:[/?#]\S*)?$`,
  'iu',
);
const URLIZE_EMAIL_RE = new RegExp(String.raw`^\S+@[${W}][${W}.-]*\.[${W}]+$`, 'u');

/** Count of `needle` in `hay` (Python's str.count). */
function countOf(hay: string, needle: string): number {
  return hay.split(needle).length - 1;
}

/**
 * Jinja2's urlize, step for step: the text is escaped first and the words are read escaped (so `<` is `&lt;` and
 * counts as its four characters when trimmed), leading and trailing punctuation is kept out of a link, and brackets
 * a link opens are taken back from the trailing punctuation (`subj_<desc.h>)`).
 */
function urlize(text: string, trimLimit: unknown, nofollow: unknown, target: unknown, rel: unknown, extraSchemes: unknown): string {
  const schemes = extraSchemes === null || isUndefined(extraSchemes) ? null : Array.isArray(extraSchemes) ? extraSchemes.map(toStr) : [toStr(extraSchemes)];
  const relParts = new Set(toStr(rel ?? 'noopener').split(/\s+/).filter(Boolean));
  if (truthy(nofollow)) relParts.add('nofollow');
  const relAttr = relParts.size ? ` rel="${escape([...relParts].sort().join(' ')).s}"` : '';
  const targetAttr = target ? ` target="${escape(target).s}"` : '';
  const limit = typeof trimLimit === 'number' ? trimLimit : null;
  const trim = (u: string): string => (limit !== null && [...u].length > limit ? `${[...u].slice(0, limit).join('')}...` : u);
  return escape(text)
    .s.split(/(\s+)/)
    .map((word) => {
      let head = '';
      let middle = word;
      let tail = '';
      const lead = /^(?:[(<]|&lt;)+/.exec(middle);
      if (lead) {
        head = lead[0];
        middle = middle.slice(head.length);
      }
      const trail = /(?:[)>.,\n]|&gt;)+$/.exec(middle);
      if (trail) {
        tail = trail[0];
        middle = middle.slice(0, trail.index);
      }
      // Prefer balancing brackets in the URL to leaving a closing one out.
      for (const [open, close] of [['(', ')'], ['<', '>'], ['&lt;', '&gt;']] as const) {
        const opened = countOf(middle, open);
        if (opened <= countOf(middle, close)) continue;
        for (let n = Math.min(opened, countOf(tail, close)); n > 0; n--) {
          const end = tail.indexOf(close) + close.length;
          middle += tail.slice(0, end);
          tail = tail.slice(end);
        }
      }
      if (URLIZE_HTTP_RE.test(middle)) {
        const href = middle.startsWith('https://') || middle.startsWith('http://') ? middle : `https://${middle}`;
        middle = `<a href="${href}"${relAttr}${targetAttr}>${trim(middle)}</a>`;
      } else if (middle.startsWith('mailto:') && URLIZE_EMAIL_RE.test(middle.slice(7))) {
        middle = `<a href="${middle}">${middle.slice(7)}</a>`;
      } else if (middle.includes('@') && !middle.startsWith('www.') && !middle.startsWith('@') && !middle.includes(':') && URLIZE_EMAIL_RE.test(middle)) {
        middle = `<a href="mailto:${middle}">${middle}</a>`;
      } else if (schemes !== null) {
        for (const scheme of schemes) if (middle !== scheme && middle.startsWith(scheme)) middle = `<a href="${middle}"${relAttr}${targetAttr}>${middle}</a>`;
      }
      return head + middle + tail;
    })
    .join('');
}

function filesize(value: unknown, binary: unknown): string {
  const bytes = toNumber(floatOf(value));
  const base = truthy(binary) ? 1024 : 1000;
  const prefixes = truthy(binary)
    ? ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB', 'ZiB', 'YiB']
    : ['kB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB', 'YB'];
  if (bytes === 1) return '1 Byte';
  if (bytes < base) return `${Math.trunc(bytes)} Bytes`;
  let unit = 0;
  let prefix = '';
  for (let i = 0; i < prefixes.length; i++) {
    unit = base ** (i + 2);
    prefix = prefixes[i];
    if (bytes < unit) break;
  }
  return `${toFixedPy((base * bytes) / unit, 1)} ${prefix}`;
}

function floatOf(v: unknown, dflt: unknown = 0): unknown {
  if (isNumeric(v)) return mkFloat(toNumber(v));
  if (isStr(v)) {
    const n = parseFloatPy(strValue(v));
    if (n !== null) return mkFloat(n);
  }
  return isNumeric(dflt) ? mkFloat(toNumber(dflt)) : dflt;
}

export function builtinFilters(): Map<string, FilterImpl> {
  const m = new Map<string, FilterImpl>();
  const def = (name: string, spec: (string | [string, unknown])[], impl: (state: RenderState, value: unknown, ...p: unknown[]) => unknown): void => {
    m.set(name, builtin(name, spec, impl));
  };

  def('abs', [], (_s, v) => {
    if (typeof v === 'number') return Math.abs(v);
    if (typeof v === 'bigint') return v < 0n ? -v : v;
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (v instanceof PyFloat) return new PyFloat(Math.abs(v.value));
    throw typeError(`bad operand type for abs(): '${typeName(v)}'`);
  });
  // Attribute only (no item fallback), through the sandbox: a dict's keys are not attributes.
  def('attr', ['name'], (_s, v, name) => {
    const n = toStr(name);
    // Jinja2 does getattr(undefined, name): a dunder name is no attribute (an undefined), any other raises.
    if (isUndefined(v)) {
      if (n.startsWith('__')) return new Undefined(`'${n}' is undefined`);
      throw undefinedFail(v);
    }
    if (isDict(v) && !isUndefined(v)) return hasDictMethod(n) ? getAttr(v, n) : new Undefined(`dict object has no attribute '${n}'`);
    return getAttr(v, n);
  });
  def('batch', ['linecount', ['fill_with', null]], (s, v, n, fill) =>
    withList(v, s, (items) => {
      const size = intOf(n, 'linecount');
      const out: unknown[] = [];
      let tmp: unknown[] = [];
      for (const x of items) {
        if (tmp.length === size) {
          out.push(owned(tmp));
          tmp = [];
        }
        tmp.push(x);
      }
      if (tmp.length) {
        if (fill !== null && tmp.length < size) while (tmp.length < size) tmp.push(fill);
        out.push(owned(tmp));
      }
      return owned(out);
    }),
  );
  def('capitalize', [], (_s, v) => pyCapitalize(str(v)));
  def('center', [['width', 80]], (s, v, w) => {
    const width = intOf(w, 'width');
    s.checkSize(width);
    return pyCenter(str(v), width, ' ');
  });
  const length: FilterImpl = builtin('length', [], (_s, v) => lengthOf(v));
  m.set('length', length);
  m.set('count', length);
  const dflt = builtin('default', [['default_value', ''], ['boolean', false]], (_s, v, d, boolean) =>
    isUndefined(v) || (truthy(boolean) && !truthy(v)) ? d : v,
  );
  m.set('default', dflt);
  m.set('d', dflt);
  def('dictsort', [['case_sensitive', false], ['by', 'key'], ['reverse', false]], (_s, v, cs, by, reverse) => {
    if (isUndefined(v)) throw undefinedFail(v);
    if (!isDict(v)) throw typeError('You can only sort by either "key" or "value"');
    let pos: number;
    if (by === 'key') pos = 0;
    else if (by === 'value') pos = 1;
    else throw typeError('You can only sort by either "key" or "value"');
    const items = dictEntries(v).map((e) => tuple([e[0], e[1]]));
    const key = (x: unknown[]): unknown => (!truthy(cs) && isStr(x[pos]) ? strValue(x[pos] as string).toLowerCase() : x[pos]);
    const sorted = items.slice().sort((a, b) => pyCompare(key(a), key(b)) * (truthy(reverse) ? -1 : 1));
    return owned(sorted);
  });
  const esc = builtin('escape', [], (_s, v) => escape(v));
  m.set('escape', esc);
  m.set('e', esc);
  def('forceescape', [], (_s, v) => escape(v instanceof Markup ? v.s : toStr(v)));
  def('filesizeformat', [['binary', false]], (_s, v, b) => filesize(v, b));
  def('first', [], (s, v) => {
    if (isStr(v)) {
      const t = strValue(v);
      return t ? String.fromCodePoint(t.codePointAt(0) ?? 0) : new Undefined('No first item, sequence was empty.');
    }
    return withList(v, s, (items) => (items.length ? items[0] : new Undefined('No first item, sequence was empty.')));
  });
  def('float', [['default', new PyFloat(0)]], (_s, v, d) => {
    if (isUndefined(v)) throw undefinedFail(v);
    return floatOf(v, d);
  });
  m.set('format', (state, v, args, kwargs) => {
    const hasKw = Object.keys(kwargs).length > 0;
    if (args.length && hasKw) throw typeError("can't handle positional and keyword arguments at the same time");
    const values = hasKw ? new Map(Object.entries(kwargs)) : tuple(args.slice());
    return percentFormat(str(v), values, state.limits.maxOutputBytes);
  });
  def('groupby', ['attribute', ['default', null], ['case_sensitive', false]], (s, v, attribute, d, cs) =>
    withList(v, s, (items) => {
      const g = attrGetter(attribute, !truthy(cs), d === null ? undefined : d);
      const raw = attrGetter(attribute, false, d === null ? undefined : d);
      return thenMaybe(mapMaybe(items, g), (ks) => {
        const keys = ks as unknown[];
        const idx = items.map((_, i) => i).sort((a, b) => pyCompare(keys[a], keys[b]));
        const groups: { key: unknown; items: unknown[] }[] = [];
        for (const i of idx) {
          const last = groups[groups.length - 1];
          if (last && pyEquals(last.key, keys[i])) last.items.push(items[i]);
          else groups.push({ key: keys[i], items: [items[i]] });
        }
        return thenMaybe(mapMaybe(groups.map((gr) => gr.items[0]), raw), (grs) =>
          owned(
            groups.map((gr, i) => {
              const t = tuple([truthy(cs) ? gr.key : (grs as unknown[])[i], owned(gr.items)]);
              GROUP_TUPLES.add(t);
              return t;
            }),
          ),
        );
      });
    }),
  );
  def('indent', [['width', 4], ['first', false], ['blank', false]], (s, v, width, first, blank) => {
    const ind = isStr(width) ? strValue(width) : ' '.repeat(intOf(width, 'width'));
    const text = str(v) + '\n';
    let rv: string;
    if (truthy(blank)) rv = pySplitlines(text, false).join('\n' + ind);
    else {
      const lines = pySplitlines(text, false);
      rv = lines.shift() ?? '';
      if (lines.length) rv += '\n' + lines.map((l) => (l ? ind + l : l)).join('\n');
    }
    if (truthy(first)) rv = ind + rv;
    s.checkSize(rv.length);
    return v instanceof Markup ? new Markup(rv) : rv;
  });
  def('int', [['default', 0], ['base', 10]], (_s, v, d, base) => {
    if (isUndefined(v)) throw undefinedFail(v);
    if (isStr(v)) {
      const b = intOf(base, 'base');
      const n = parseIntPy(strValue(v), b);
      if (n !== null) return n;
      const f = parseFloatPy(strValue(v));
      if (f !== null && Number.isFinite(f)) return truncToInt(f);
      return d;
    }
    if (typeof v === 'bigint') return v;
    if (isNumeric(v)) {
      const n = toNumber(v);
      return Number.isFinite(n) ? truncToInt(n) : d;
    }
    return d;
  });
  def('items', [], (_s, v) => {
    if (isUndefined(v)) return owned([]);
    if (!isDict(v)) throw typeError('Can only get item pairs from a mapping.');
    return owned(dictEntries(v).map((e) => tuple([e[0], e[1]])));
  });
  def('join', [['d', ''], ['attribute', null]], (s, v, d, attribute) =>
    withList(v, s, (items) =>
      thenMaybe(attribute === null ? items : mapMaybe(items, attrGetter(attribute)), (vals) => {
        const arr = vals as unknown[];
        const sep = toStr(d);
        if (arr.some((x) => x instanceof Markup) || d instanceof Markup)
          return new Markup(arr.map((x) => escape(x).s).join(escape(d).s));
        const out = arr.map(str).join(sep);
        s.checkSize(out.length);
        return out;
      }),
    ),
  );
  def('last', [], (s, v) => {
    if (isStr(v)) {
      const chars = Array.from(strValue(v));
      return chars.length ? chars[chars.length - 1] : new Undefined('No last item, sequence was empty.');
    }
    return withList(v, s, (items) => (items.length ? items[items.length - 1] : new Undefined('No last item, sequence was empty.')));
  });
  def('list', [], (s, v) => withList(v, s, (items) => owned(items.slice())));
  def('lower', [], (_s, v) => str(v).toLowerCase());
  def('upper', [], (_s, v) => str(v).toUpperCase());
  m.set('map', (state, v, args, kwargs) =>
    // As Jinja2's `if value:`: a falsy value (None, 0, False, '') maps to nothing rather than failing.
    !isTemplateObject(v) && !truthy(v) ? owned([]) : withList(v, state, (items) => {
      if (!args.length) {
        if (!Object.prototype.hasOwnProperty.call(kwargs, 'attribute')) return owned(items.slice());
        const d = kwargs.default;
        const g = attrGetter(kwargs.attribute, false, d);
        return thenMaybe(mapMaybe(items, g), (r) => owned(r as unknown[]));
      }
      const fname = toStr(args[0]);
      const impl = state.registry.filters.get(fname);
      if (!impl) throw new TemplateError('type', `No filter named '${fname}'.`);
      const rest = args.slice(1);
      return thenMaybe(mapMaybe(items, (x) => impl(state, x, rest, kwargs)), (r) => owned(r as unknown[]));
    }),
  );
  def('max', [['case_sensitive', false], ['attribute', null]], (s, v, cs, a) => minMax(s, v, cs, a, 1));
  def('min', [['case_sensitive', false], ['attribute', null]], (s, v, cs, a) => minMax(s, v, cs, a, -1));
  def('pprint', [], (_s, v) => pformat(v, 0));
  def('random', [], (s, v) =>
    withList(v, s, (items) => {
      if (!items.length) return new Undefined('No random item, sequence was empty.');
      return items[s.randomIndex(items.length)];
    }),
  );
  m.set('select', (s, v, a, k) => selectOrReject(s, v, a, k, true, false));
  m.set('reject', (s, v, a, k) => selectOrReject(s, v, a, k, false, false));
  m.set('selectattr', (s, v, a, k) => selectOrReject(s, v, a, k, true, true));
  m.set('rejectattr', (s, v, a, k) => selectOrReject(s, v, a, k, false, true));
  def('replace', ['old', 'new', ['count', null]], (s, v, old, rep, count) => {
    const out = pyReplace(str(v), toStr(old), toStr(rep), count === null ? -1 : intOf(count, 'count'));
    s.checkSize(out.length);
    return v instanceof Markup ? new Markup(out) : out;
  });
  def('reverse', [], (s, v) => {
    if (isStr(v)) return Array.from(strValue(v)).reverse().join('');
    return withList(v, s, (items) => owned(items.slice().reverse()));
  });
  def('round', [['precision', 0], ['method', 'common']], (_s, v, precision, method) => {
    if (method !== 'common' && method !== 'ceil' && method !== 'floor') throw typeError('method must be common, ceil or floor');
    if (!isNumeric(v)) {
      throw typeError(`type ${typeName(v)} doesn't define __round__ method`);
    }
    const p = intOf(precision, 'precision');
    const x = toNumber(v);
    if (method === 'common') {
      if (!isFloat(v)) {
        if (p >= 0) return typeof v === 'bigint' ? v : x;
        return Number.isSafeInteger(x) && typeof v !== 'bigint' && p > -16 ? roundPy(x, p) : roundIntHalfEven(toBigInt(v), p);
      }
      return mkFloat(roundPy(x, p));
    }
    const f = 10 ** p;
    return mkFloat((method === 'ceil' ? Math.ceil(x * f) : Math.floor(x * f)) / f);
  });
  def('safe', [], (_s, v) => (v instanceof Markup ? v : new Markup(toStr(v))));
  def('slice', ['slices', ['fill_with', null]], (s, v, n, fill) =>
    withList(v, s, (seq) => {
      const slices = intOf(n, 'slices');
      if (slices <= 0) throw typeError('integer division or modulo by zero');
      // Each slice is a list of the output: as many as a range may hold at most (Jinja2 would loop until memory ran out).
      if (slices > s.limits.maxRangeItems) throw limitError(`slice() of ${slices} slices: the sandbox makes at most MAX_RANGE (${s.limits.maxRangeItems}).`);
      const per = Math.floor(seq.length / slices);
      const extra = seq.length % slices;
      let offset = 0;
      const out: unknown[] = [];
      for (let i = 0; i < slices; i++) {
        const start = offset + i * per;
        if (i < extra) offset++;
        const end = offset + (i + 1) * per;
        const tmp = seq.slice(start, end);
        if (fill !== null && i >= extra) tmp.push(fill);
        out.push(owned(tmp));
      }
      return owned(out);
    }),
  );
  def('sort', [['reverse', false], ['case_sensitive', false], ['attribute', null]], (s, v, rev, cs, attr) =>
    withList(v, s, (items) => sortValues(s, items, rev, cs, attr)),
  );
  def('string', [], (_s, v) => (v instanceof Markup ? v : toStr(v)));
  def('striptags', [], (_s, v) => striptags(toStr(v)));
  def('sum', [['attribute', null], ['start', 0]], (s, v, attr, start) =>
    withList(v, s, (items) =>
      thenMaybe(attr === null ? items : mapMaybe(items, attrGetter(attr)), (vals) => {
        let acc: unknown = start;
        for (const x of vals as unknown[]) acc = add(acc, x);
        return acc;
      }),
    ),
  );
  def('title', [], (_s, v) =>
    str(v)
      .split(TITLE_SPLIT)
      .filter((x) => x)
      .map((x) => {
        const first = String.fromCodePoint(x.codePointAt(0) ?? 0);
        return first.toUpperCase() + x.slice(first.length).toLowerCase();
      })
      .join(''),
  );
  def('tojson', [['indent', null]], (_s, v, indent) => {
    const ind = indent === null ? null : isStr(indent) ? strValue(indent) : ' '.repeat(Math.max(0, intOf(indent, 'indent')));
    const s = jsonDump(v, ind, 0, [])
      .replace(/</g, '\\u003c')
      .replace(/>/g, '\\u003e')
      .replace(/&/g, '\\u0026')
      .replace(/'/g, '\\u0027');
    return new Markup(s);
  });
  def('trim', [['chars', null]], (_s, v, chars) => pyStrip(str(v), chars === null ? null : toStr(chars), true, true));
  def('truncate', [['length', 255], ['killwords', false], ['end', '...'], ['leeway', null]], (_s, v, len, kill, end, leeway) => {
    const s = str(v);
    const length = intOf(len, 'length');
    const e = toStr(end);
    const lw = leeway === null ? 5 : intOf(leeway, 'leeway');
    if (length < cpLength(e)) throw typeError(`expected length >= ${cpLength(e)}, got ${length}`);
    if (lw < 0) throw typeError(`expected leeway >= 0, got ${lw}`);
    const chars = Array.from(s);
    if (chars.length <= length + lw) return s;
    const head = chars.slice(0, length - cpLength(e)).join('');
    if (truthy(kill)) return head + e;
    const k = head.lastIndexOf(' ');
    return (k === -1 ? head : head.slice(0, k)) + e;
  });
  def('unique', [['case_sensitive', false], ['attribute', null]], (s, v, cs, attr) =>
    withList(v, s, (items) => {
      const g = attrGetter(attr, !truthy(cs));
      return thenMaybe(mapMaybe(items, g), (ks) => {
        const keys = ks as unknown[];
        const seen: unknown[] = [];
        const out: unknown[] = [];
        items.forEach((x, i) => {
          if (!seen.some((k) => pyEquals(k, keys[i]))) {
            seen.push(keys[i]);
            out.push(x);
          }
        });
        return owned(out);
      });
    }),
  );
  def('urlencode', [], (s, v) => {
    if (isStr(v) || !(Array.isArray(v) || isDict(v))) return urlQuote(v, false);
    const pairs = isDict(v) ? dictEntries(v) : (v as unknown[]).map((p) => (Array.isArray(p) ? [p[0], p[1]] : [p, '']));
    return pairs.map(([k, x]) => `${urlQuote(k, true)}=${urlQuote(x, true)}`).join('&');
  });
  def('urlize', [['trim_url_limit', null], ['nofollow', false], ['target', null], ['rel', null], ['extra_schemes', null]], (_s, v, lim, nf, target, rel, schemes) =>
    new Markup(urlize(toStr(v), lim, nf, target, rel, schemes)),
  );
  def('wordcount', [], (_s, v) => (str(v).match(/[\p{L}\p{N}_]+/gu) ?? []).length);
  def('wordwrap', [['width', 79], ['break_long_words', true], ['wrapstring', null], ['break_on_hyphens', true]], (_s, v, width, bl, ws, boh) => {
    const sep = ws === null ? '\n' : toStr(ws);
    const w = intOf(width, 'width');
    if (w <= 0) throw typeError(`invalid width ${w} (must be > 0)`);
    return pySplitlines(str(v), false)
      .map((line) => wrapLine(line, w, truthy(bl), truthy(boh)).join(sep))
      .join(sep);
  });
  def('xmlattr', [['autospace', true]], (_s, v, autospace) => {
    if (!isDict(v)) throw typeError('xmlattr expects a mapping');
    const items: string[] = [];
    for (const [k, x] of dictEntries(v)) {
      if (x === null || isUndefined(x)) continue;
      const key = toStr(k);
      if (/[\s/>=]/.test(key)) throw typeError(`Invalid character in attribute name: ${repr(key)}`);
      items.push(`${escape(key).s}="${escape(x).s}"`);
    }
    let rv = items.join(' ');
    if (truthy(autospace) && rv) rv = ' ' + rv;
    return new Markup(rv);
  });
  return m;
}

export { REQUIRED, EMPTY_KWARGS, isPlainObject, sliceValue, callValue, TUPLES, cpLength };
