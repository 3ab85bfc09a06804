// The host filter's fast path for canonical text must print exactly what the general (ipaddr.js) path prints,
// and must take every address in the form ipaddr.js itself prints.
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { canonicalHostText, isCanonicalIPv4, isCanonicalIPv6 } from './address.ts';
import { createEnvironment } from './index.ts';

/** A small seeded PRNG, so a failure names a reproducible input. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What the general path prints for `text`, or null when ipaddr.js refuses it (the filter then raises). */
function generalHost(text: string): string | null {
  const slash = text.indexOf('/');
  const ip = slash === -1 ? text : text.slice(0, slash);
  if (ipaddr.IPv4.isValidFourPartDecimal(ip)) return ipaddr.IPv4.parse(ip).toString();
  if (ip.includes(':') && ipaddr.IPv6.isValid(ip)) return ipaddr.IPv6.parse(ip).toString();
  return null;
}

function randomIPv6Parts(r: () => number): number[] {
  // Zero-heavy, so runs of zero groups of every length and position come up often.
  return Array.from({ length: 8 }, () => (r() < 0.5 ? 0 : r() < 0.3 ? Math.floor(r() * 16) : Math.floor(r() * 65536)));
}

/** Spellings of one address: canonical, full, with leading zeros, upper case, other compressions. */
function spellings(parts: number[], r: () => number): string[] {
  const hex = parts.map((p) => p.toString(16));
  const out = [ipaddr.fromByteArray(new ipaddr.IPv6(parts).toByteArray()).toString(), hex.join(':'), parts.map((p) => p.toString(16).padStart(4, '0')).join(':')];
  out.push(out[0]!.toUpperCase());
  // Every way of compressing one zero run of length >= 1 with '::'.
  for (let i = 0; i < 8; i++) {
    for (let j = i + 1; j <= 8; j++) {
      if (parts.slice(i, j).every((p) => p === 0)) out.push(`${hex.slice(0, i).join(':')}::${hex.slice(j).join(':')}`);
    }
  }
  return out.map((s) => (r() < 0.5 ? `${s}/${Math.floor(r() * 140)}` : s));
}

describe('host fast path', () => {
  it('prints what ipaddr.js prints for every spelling it takes, and takes every canonical one', () => {
    const r = prng(6);
    let fast = 0;
    for (let n = 0; n < 2000; n++) {
      const parts = randomIPv6Parts(r);
      const canonical = new ipaddr.IPv6(parts).toString();
      expect(isCanonicalIPv6(canonical), canonical).toBe(true);
      for (const s of spellings(parts, r)) {
        const got = canonicalHostText(s);
        if (got === null) continue;
        fast++;
        expect(got, s).toBe(generalHost(s));
        if (s.includes('/')) expect(Number(s.split('/')[1]) <= 128, s).toBe(true);
      }
    }
    expect(fast).toBeGreaterThan(2000);
  });

  it('IPv4: canonical dotted quads only, masks within 0-32', () => {
    const r = prng(4);
    for (let n = 0; n < 3000; n++) {
      const octets = Array.from({ length: 4 }, () => Math.floor(r() * (r() < 0.1 ? 400 : 256)));
      const text = octets.join('.');
      const spelled = [text, octets.map((o) => String(o).padStart(r() < 0.5 ? 2 : 3, '0')).join('.'), `${text}/${Math.floor(r() * 40)}`, `${text}/`, `${text}/a`, `${text}.1`];
      for (const s of spelled) {
        const got = canonicalHostText(s);
        if (got === null) continue;
        expect(got, s).toBe(generalHost(s));
        const len = s.includes('/') ? Number(s.split('/')[1]) : 32;
        expect(len <= 32, s).toBe(true);
      }
      if (octets.every((o) => o < 256)) expect(canonicalHostText(text)).toBe(text);
    }
    for (const bad of ['', '1.2.3', '1.2.3.4.', '01.2.3.4', '1.2.3.256', '1..3.4', ' 1.2.3.4', '1.2.3.4/', '1.2.3.4/33', '1.2.3.4/0032'])
      expect(isCanonicalIPv4(bad.split('/')[0]!) && canonicalHostText(bad) !== null, bad).toBe(false);
  });

  it('leaves non-canonical IPv6 to the general path', () => {
    for (const s of ['::ffff:1.2.3.4', '2001:DB8::1', '2001:0db8::1', '2001:db8:0:0:1::1', '1:0:0:0:2::3', '::1::', '1:2:3:4:5:6:7:8:9', '1::2:3:4:5:6:7:8', 'fe80::1%eth0', '2001:db8::1/129'])
      expect(canonicalHostText(s), s).toBeNull();
    expect(canonicalHostText('2001:db8::1/64')).toBe('2001:db8::1');
    expect(canonicalHostText('::')).toBe('::');
    expect(canonicalHostText('1:0:2:3:4:5:6:7')).toBe('1:0:2:3:4:5:6:7');
  });

  it('renders the same through the filter for dicts and strings, and still refuses what is not an address', async () => {
    const env = createEnvironment();
    const t = env.compile('{{ a|host }} {{ b|host }} {{ c|host }} {{ d|host }}');
    const out = await t.render({ a: '10.0.0.1/24', b: { address: '2001:db8::1/64' }, c: { address: '10.1.2.3', prefix_length: 16 }, d: '2001:0DB8::0001' });
    expect(out).toBe('10.0.0.1 2001:db8::1 10.1.2.3 2001:db8::1');
    await expect(env.compile('{{ x|host }}').render({ x: '10.0.0.256/24' })).rejects.toThrow(/not a valid IP address/);
    await expect(env.compile('{{ x|host }}').render({ x: { address: '10.0.0.1/33' } })).rejects.toThrow(/not a valid IP address/);
    await expect(env.compile('{{ x|host }}').render({ x: { address: '10.0.0.1', prefix_length: 33 } })).rejects.toThrow(/not a valid IP address/);
    await expect(env.compile('{{ x|host }}').render({ x: { address: '::1', prefix_length: -1 } })).rejects.toThrow(/not a valid IP address/);
    expect(canonicalHostText({ address: '10.0.0.1', prefix_length: 24 })).toBe('10.0.0.1');
    expect(canonicalHostText({ address: '10.0.0.1', prefix_length: 33 })).toBeNull();
    expect(canonicalHostText({ address: '2001:db8::1', prefix_length: 'x' })).toBe('2001:db8::1');
  });
});
