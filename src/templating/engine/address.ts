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
  const s = text;
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

/** Resolves a template value to a parsed address (or null when invalid); Promise when attributes are async. */
function resolve(v: unknown): Parsed | null | Promise<Parsed | null> {
  if (isStr(v)) return parseAddress(strValue(v), null);
  if (isTemplateObject(v) || isDict(v)) {
    const get = (name: string): unknown => (isDict(v) ? (dictGet(v, name) ?? null) : getAttr(v, name));
    return thenMaybe(get('address'), (a): unknown =>
      thenMaybe(get('prefix_length'), (pl) => {
        if (!isStr(a)) return null;
        const fallback = isNumeric(pl) ? toNumber(pl) : null;
        return parseAddress(strValue(a), fallback);
      }),
    ) as Parsed | null | Promise<Parsed | null>;
  }
  return null;
}

function describe(v: unknown): string {
  if (isStr(v)) return repr(strValue(v));
  if (isUndefined(v)) return 'an undefined value';
  return repr(v);
}

function addressFilter(name: string, fn: (p: Parsed) => unknown): FilterImpl {
  return (_state, value) =>
    thenMaybe(resolve(value), (p) => {
      if (!p) throw new TemplateError('type', `${name}: ${describe(value)} is not a valid IP address or network`);
      return fn(p as Parsed);
    });
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
  m.set('host', addressFilter('host', (p) => p.addr.toString()));
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
