// Cairn's address filters (host, cidr, prefixlen, netmask, wildcard, network) and tests (ipv4, ipv6).
//
// Input is a string ("10.0.0.5/24", "2001:db8::1", a bare address is a host: /32 or /128) or an address object:
// a host object (TemplateObject) or a mapping whose attribute `address` is such a string (its own mask length when
// it has one) and, optionally, whose attribute `prefix_length` is the length of the prefix it belongs to (used when
// the address string carries no mask). Attributes may be Promises. Filters raise a 'type' TemplateError naming
// the invalid value; tests answer false.
import ipaddr from 'ipaddr.js';
import { TemplateError } from './errors.ts';
import { getAttr, thenMaybe } from './ops.ts';
import type { FilterImpl, TestImpl } from './state.ts';
import { dictGet, isDict, isStr, isTemplateObject, isUndefined, strValue, toNumber, isNumeric, repr, toStr } from './values.ts';

interface Parsed {
  addr: ipaddr.IPv4 | ipaddr.IPv6;
  len: number;
}

function parseAddress(text: string, fallbackLen: number | null): Parsed | null {
  // Surrounding whitespace (a value pasted from a table or a CSV column) is not part of the address.
  const s = text.trim();
  const slash = s.indexOf('/');
  const ip = slash === -1 ? s : s.slice(0, slash);
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  if (ipaddr.IPv4.isValidFourPartDecimal(ip)) addr = ipaddr.IPv4.parse(ip);
  else if (ipaddr.IPv6.isValid(ip) && ip.includes(':')) addr = ipaddr.IPv6.parse(ip);
  else return null;
  const max = addr.kind() === 'ipv4' ? 32 : 128;
  let len: number;
  if (slash !== -1) {
    const l = s.slice(slash + 1);
    if (!/^\d{1,3}$/.test(l)) return null;
    len = Number(l);
  } else len = fallbackLen ?? max;
  if (len < 0 || len > max) return null;
  return { addr, len };
}

/** `address` + `prefix_length` of an address object, read; parsed once both are there. */
function parseWithFallback(a: unknown, pl: unknown): Parsed | null {
  if (!isStr(a)) return null;
  return parseAddress(strValue(a), isNumeric(pl) ? toNumber(pl) : null);
}

/** Resolves a template value to a parsed address (or null when invalid); Promise when attributes are async. */
function resolve(v: unknown): Parsed | null | Promise<Parsed | null> {
  if (isStr(v)) return parseAddress(strValue(v), null);
  if (isDict(v)) return parseWithFallback(dictGet(v, 'address') ?? null, dictGet(v, 'prefix_length') ?? null);
  if (isTemplateObject(v)) {
    // prefix_length is read only for an address without a mask of its own: a host object may load it (one query).
    const a = getAttr(v, 'address');
    return a instanceof Promise ? a.then((x) => withPrefixLength(v, x)) : withPrefixLength(v, a);
  }
  return null;
}

function withPrefixLength(v: unknown, a: unknown): Parsed | null | Promise<Parsed | null> {
  if (!isStr(a) || strValue(a).includes('/')) return parseWithFallback(a, null);
  const pl = getAttr(v, 'prefix_length');
  return pl instanceof Promise ? pl.then((y) => parseWithFallback(a, y)) : parseWithFallback(a, pl);
}

/**
 * The text of a value when it is an address string (or a dict whose `address` is one) that already reads exactly as
 * `host` would print it: canonical IPv4 or RFC 5952 IPv6, with or without a valid mask length. Null otherwise
 * (the general path then decides). An export prints one address per row, and parsing each into ipaddr.js
 * objects only to print the same text again was a measured share of a 50,000-row render.
 */
export function canonicalHostText(v: unknown): string | null {
  let text: unknown = v;
  // A mask length from the dict's prefix_length, used (as by the general path) when the text has no mask.
  let fallback: number | null = null;
  if (isDict(v)) {
    text = dictGet(v, 'address');
    const pl = dictGet(v, 'prefix_length') ?? null;
    fallback = isNumeric(pl) ? toNumber(pl) : null;
  }
  if (typeof text !== 'string') return null;
  const slash = text.indexOf('/');
  const ip = slash === -1 ? text : text.slice(0, slash);
  let max: number;
  if (isCanonicalIPv4(ip)) max = 32;
  else if (isCanonicalIPv6(ip)) max = 128;
  else return null;
  if (slash === -1) {
    if (fallback !== null && (fallback < 0 || fallback > max)) return null;
  } else {
    const len = text.length - slash - 1;
    if (len < 1 || len > 3) return null;
    let n = 0;
    for (let i = slash + 1; i < text.length; i++) {
      const c = text.charCodeAt(i) - 48;
      if (c < 0 || c > 9) return null;
      n = n * 10 + c;
    }
    if (n > max) return null;
  }
  return ip;
}

/** Four decimal octets 0-255 without leading zeros: what ipaddr.js accepts as four-part decimal and prints unchanged. */
export function isCanonicalIPv4(s: string): boolean {
  let parts = 0;
  let i = 0;
  const n = s.length;
  while (parts < 4) {
    const start = i;
    let value = 0;
    while (i < n) {
      const c = s.charCodeAt(i) - 48;
      if (c < 0 || c > 9) break;
      value = value * 10 + c;
      i++;
    }
    const digits = i - start;
    if (digits === 0 || digits > 3 || value > 255 || (digits > 1 && s.charCodeAt(start) === 48)) return false;
    parts++;
    if (parts < 4) {
      if (s.charCodeAt(i) !== 46) return false;
      i++;
    }
  }
  return i === n;
}

/**
 * Whether `s` is an IPv6 address exactly as ipaddr.js prints it (RFC 5952): lowercase hex groups without leading
 * zeros, the first longest run of two or more zero groups (and only that) written as `::`, no embedded IPv4 and
 * no zone.
 */
export function isCanonicalIPv6(s: string): boolean {
  const gap = s.indexOf('::');
  if (gap !== -1 && s.indexOf('::', gap + 1) !== -1) return false;
  const left = gap === -1 ? s : s.slice(0, gap);
  const right = gap === -1 ? '' : s.slice(gap + 2);
  const l = groupsOf(left);
  const r = groupsOf(right);
  if (l === null || r === null) return false;
  if (gap === -1) return l.count === 8 && l.longestZeroRun < 2;
  const compressed = 8 - l.count - r.count;
  // A run of one zero group is written "0"; a longer or equal run before the gap would have been compressed
  // instead; a zero group next to the gap belongs to the compressed run.
  return compressed >= 2 && l.longestZeroRun < compressed && r.longestZeroRun <= compressed && !l.lastZero && !r.firstZero;
}

/** Colon-separated canonical hex groups ('' is none): how many, the longest run of "0" groups, zero at either end. */
function groupsOf(s: string): { count: number; longestZeroRun: number; firstZero: boolean; lastZero: boolean } | null {
  if (s === '') return { count: 0, longestZeroRun: 0, firstZero: false, lastZero: false };
  let firstZero = false;
  let count = 0;
  let run = 0;
  let longest = 0;
  let i = 0;
  const n = s.length;
  for (;;) {
    const start = i;
    while (i < n) {
      const c = s.charCodeAt(i);
      if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) break;
      i++;
    }
    const len = i - start;
    if (len === 0 || len > 4 || (len > 1 && s.charCodeAt(start) === 48)) return null;
    count++;
    if (count > 8) return null;
    if (len === 1 && s.charCodeAt(start) === 48) {
      if (count === 1) firstZero = true;
      run++;
      if (run > longest) longest = run;
    } else run = 0;
    if (i === n) return { count, longestZeroRun: longest, firstZero, lastZero: run > 0 };
    if (s.charCodeAt(i) !== 58) return null;
    i++;
  }
}

function describe(v: unknown): string {
  if (isStr(v)) return repr(strValue(v));
  if (isUndefined(v)) return 'an undefined value';
  return repr(v);
}

function addressFilter(name: string, fn: (p: Parsed) => unknown): FilterImpl {
  const apply = (p: Parsed | null, value: unknown): unknown => {
    if (!p) throw new TemplateError('type', `${name}: ${describe(value)} is not a valid IP address or network`);
    return fn(p);
  };
  return (_state, value) => {
    const p = resolve(value);
    return p instanceof Promise ? p.then((x) => apply(x, value)) : apply(p, value);
  };
}

/** `host`: canonical text is printed as it stands (the same text ipaddr.js would give), anything else parsed. */
function hostFilter(): FilterImpl {
  const general = addressFilter('host', (p) => p.addr.toString());
  return (state, value, args, kwargs) => canonicalHostText(value) ?? general(state, value, args, kwargs);
}

function maskOf(p: Parsed): ipaddr.IPv4 | ipaddr.IPv6 {
  return p.addr.kind() === 'ipv4'
    ? ipaddr.IPv4.subnetMaskFromPrefixLength(p.len)
    : ipaddr.IPv6.subnetMaskFromPrefixLength(p.len);
}

function fromBytes(bytes: number[]): string {
  return ipaddr.fromByteArray(bytes).toString();
}

export function addressFilters(): Map<string, FilterImpl> {
  const m = new Map<string, FilterImpl>();
  m.set('host', hostFilter());
  m.set('cidr', addressFilter('cidr', (p) => `${p.addr.toString()}/${p.len}`));
  m.set('prefixlen', addressFilter('prefixlen', (p) => p.len));
  m.set('netmask', addressFilter('netmask', (p) => maskOf(p).toString()));
  m.set('wildcard', addressFilter('wildcard', (p) => fromBytes(maskOf(p).toByteArray().map((b) => 255 - b))));
  m.set(
    'network',
    addressFilter('network', (p) => {
      const mask = maskOf(p).toByteArray();
      const net = p.addr.toByteArray().map((b, i) => b & mask[i]);
      return `${fromBytes(net)}/${p.len}`;
    }),
  );
  return m;
}

export function addressTests(): Map<string, TestImpl> {
  const m = new Map<string, TestImpl>();
  const kindTest =
    (kind: 'ipv4' | 'ipv6'): TestImpl =>
    (_state, value) => {
      try {
        return thenMaybe(resolve(value), (p) => p !== null && (p as Parsed).addr.kind() === kind);
      } catch {
        return false;
      }
    };
  m.set('ipv4', kindTest('ipv4'));
  m.set('ipv6', kindTest('ipv6'));
  return m;
}

export { toStr };
