// Outbound HTTPS for server-side fetches of user-configured addresses (catalog mirrors, later monitoring
// targets). A configured URL must not become a way to reach the machine's own network: the host is resolved
// once, every address it resolves to is checked, and the connection is pinned to the checked address through a
// custom `lookup`, so a second DNS answer (rebinding) cannot redirect it. TLS still verifies the original host
// name (SNI + certificate), redirects are never followed, and the body is capped in size and time.
import { readFileSync } from 'node:fs';
import { lookup as dnsLookup } from 'node:dns/promises';
import { request } from 'node:https';
import { request as plainRequest } from 'node:http';
import { isIP, type LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import ipaddr from 'ipaddr.js';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { ErrorCollector } from './errors.ts';
import { readState, writeState } from './state.ts';

export class SsrfError extends Error {}
/** Refused before anything was sent (scheme, resolution, address): the request never left. */
export class SsrfRefusal extends SsrfError {}

export interface GuardOptions {
  /** Extra allowed CIDRs or host names, on top of CAIRN_SSRF_ALLOWLIST (e.g. the admin-editable list). */
  allowlist?: readonly string[];
  maxBytes?: number;
  timeoutMs?: number;
  /** PEM of extra trusted CAs (tests, private mirrors); defaults to the file named by CAIRN_EXTRA_CA_FILE. */
  extraCa?: string;
  headers?: Record<string, string>;
  /** GET unless said otherwise; a body goes with POST (webhooks, automation launches). */
  method?: 'GET' | 'POST';
  body?: string | Buffer;
  /** Permit http:// for hosts every address of which is on the allow-list (never for public hosts otherwise). */
  allowPlainHttp?: boolean;
  /**
   * Receives the body as it arrives instead of it being held in memory (a release bundle can be a gigabyte);
   * the response's `body` is then empty. A throw fails the request. The size cap still applies.
   */
  onChunk?: (chunk: Buffer) => void;
}

export interface GuardedResponse {
  status: number;
  body: Buffer;
}

const SYSTEM_STATE_KEY = 'ssrf_allowlist';

/** Entries of CAIRN_SSRF_ALLOWLIST: comma-separated CIDRs, addresses or host names. */
export function envAllowlist(): string[] {
  return (process.env.CAIRN_SSRF_ALLOWLIST ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The admin-editable allow-list (deployment-wide, in system_state), read fresh on every fetch. */
export async function readAllowlist(db: Kysely<DB>): Promise<string[]> {
  const value = await readState<unknown>(db, SYSTEM_STATE_KEY);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export async function writeAllowlist(db: Kysely<DB>, entries: readonly string[]): Promise<void> {
  await writeState(db, SYSTEM_STATE_KEY, entries);
}

/** Why an allow-list entry is not usable, or null when it is a CIDR, an address or a host name. */
export function allowlistEntryError(entry: string): string | null {
  if (entry.includes('/')) return ipaddr.isValidCIDR(entry) ? null : `"${entry}" is not a valid CIDR.`;
  if (ipaddr.isValid(entry)) return null;
  return /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(entry) ? null : `"${entry}" is not an address, CIDR or host name.`;
}

function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const parsed = ipaddr.parse(address);
  // An IPv4-mapped IPv6 address reaches the IPv4 host: judge it as that.
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
}

/** Only globally routable unicast addresses are public; everything else (loopback, RFC 1918, link-local…) is not. */
export function isPublicAddress(address: string): boolean {
  return parseAddress(address).range() === 'unicast';
}

function allowedByList(host: string, address: string, allowlist: readonly string[]): boolean {
  const addr = parseAddress(address);
  for (const entry of allowlist) {
    if (entry.includes('/')) {
      if (!ipaddr.isValidCIDR(entry)) continue;
      const [net, bits] = ipaddr.parseCIDR(entry);
      const candidate = net.kind() === addr.kind() ? addr : null;
      if (candidate && candidate.match([net, bits] as [typeof candidate, number])) return true;
    } else if (ipaddr.isValid(entry)) {
      if (parseAddress(entry).toNormalizedString() === addr.toNormalizedString()) return true;
    } else if (entry.toLowerCase() === host.toLowerCase()) {
      return true;
    }
  }
  return false;
}

/** Refuses a non-public address unless allow-listed; returns nothing when the address may be contacted. */
export function checkAddress(host: string, address: string, allowlist: readonly string[]): void {
  if (isPublicAddress(address)) return;
  if (allowedByList(host, address, [...envAllowlist(), ...allowlist])) return;
  throw new SsrfRefusal(`${host} resolves to a non-public address (${address}); allow-list it first (CAIRN_SSRF_ALLOWLIST or the outbound allow-list).`);
}

/**
 * Checks a URL without fetching it, for settings saves: the scheme, and the address when the host is an IP
 * literal (host names are resolved and checked when fetched, since DNS may differ between now and then).
 */
export function checkUrlAtSave(raw: string, allowlist: readonly string[]): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Enter a valid URL.';
  }
  if (url.protocol !== 'https:') return 'A source URL must use https.';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  try {
    if (isIP(host)) checkAddress(host, host, allowlist);
    else if (host === 'localhost' || host.endsWith('.localhost')) checkAddress(host, '127.0.0.1', allowlist);
  } catch (err) {
    return (err as Error).message;
  }
  return null;
}

/**
 * Save-time check of an outbound URL (webhooks, automation targets): https, or plain http only to a host that is
 * explicitly allow-listed (an internal AWX without TLS is a choice an administrator makes, never a default).
 */
export function checkOutboundUrl(raw: string, allowlist: readonly string[]): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Enter a valid URL.';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'Use an https:// URL.';
  if (url.username || url.password) return 'Put credentials in their own field, not in the URL.';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host) ? host : host === 'localhost' || host.endsWith('.localhost') ? '127.0.0.1' : null;
  if (url.protocol === 'http:') {
    const listed = [...envAllowlist(), ...allowlist];
    const allowed = literal ? allowedByList(host, literal, listed) : listed.some((e) => e.toLowerCase() === host.toLowerCase());
    if (!allowed) return `Plain http:// is refused unless ${host} is on the outbound allow-list; use https://.`;
    return null;
  }
  try {
    if (literal) checkAddress(host, literal, allowlist);
  } catch (err) {
    return (err as Error).message;
  }
  return null;
}

function trustedCas(extra: string | undefined): string[] | undefined {
  const pem = extra ?? (process.env.CAIRN_EXTRA_CA_FILE ? readFileSync(process.env.CAIRN_EXTRA_CA_FILE, 'utf8') : undefined);
  return pem ? [...rootCertificates, pem] : undefined;
}

/** GET over HTTPS through the guard. Non-2xx answers are returned (the caller words the error). */
export async function guardedGet(rawUrl: string, opts: GuardOptions = {}): Promise<GuardedResponse> {
  return guardedRequest(rawUrl, { ...opts, method: 'GET', body: undefined });
}

/**
 * A request through the guard: https, or plain http only when every address of the host is explicitly
 * allow-listed (see checkOutboundUrl). Non-2xx answers are returned (the caller words the error).
 */
export async function guardedRequest(rawUrl: string, opts: GuardOptions = {}): Promise<GuardedResponse> {
  const url = new URL(rawUrl);
  const plain = url.protocol === 'http:';
  if (url.protocol !== 'https:' && !(plain && opts.allowPlainHttp)) throw new SsrfRefusal(`${rawUrl}: only https:// addresses are fetched.`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const allowlist = opts.allowlist ?? [];
  const check = (address: string) => {
    if (plain && !allowedByList(host, address, [...envAllowlist(), ...allowlist])) {
      throw new SsrfRefusal(`${rawUrl}: plain http:// is only used for allow-listed hosts; use https://.`);
    }
    checkAddress(host, address, allowlist);
  };
  let pinned: { address: string; family: number };
  if (isIP(host)) {
    check(host);
    pinned = { address: host, family: isIP(host) };
  } else {
    const answers = await dnsLookup(host, { all: true, verbatim: true }).catch((err: Error) => {
      throw new SsrfRefusal(`${host} does not resolve: ${err.message}`);
    });
    if (answers.length === 0) throw new SsrfRefusal(`${host} does not resolve.`);
    // Every answer is checked, not only the one used: a mixed answer is how rebinding tricks start.
    for (const a of answers) check(a.address);
    pinned = answers[0]!;
  }

  // The connection goes to the checked address whatever the resolver says now.
  const pinnedLookup: LookupFunction = (_hostname, options, callback) => {
    const cb = callback as (err: Error | null, address: string | { address: string; family: number }[], family?: number) => void;
    if ((options as { all?: boolean }).all) cb(null, [{ address: pinned.address, family: pinned.family }]);
    else cb(null, pinned.address, pinned.family);
  };
  const maxBytes = opts.maxBytes ?? 64 * 1024 * 1024;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const ca = trustedCas(opts.extraCa);

  return new Promise<GuardedResponse>((resolve, reject) => {
    // Settles once: a cap or the timer rejects at once and tears the connection down behind it.
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      reject(err);
      req.destroy();
    };
    const req = (plain ? plainRequest : request)(
      {
        protocol: url.protocol,
        hostname: host,
        port: url.port || (plain ? 80 : 443),
        path: `${url.pathname}${url.search}`,
        method: opts.method ?? 'GET',
        headers: { 'user-agent': 'Cairn', ...opts.headers, ...(opts.body !== undefined ? { 'content-length': String(Buffer.byteLength(opts.body)) } : {}) },
        lookup: pinnedLookup,
        ...(plain ? {} : { servername: isIP(host) ? undefined : host, ...(ca ? { ca } : {}) }),
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            fail(new SsrfError(`The answer is larger than ${Math.round(maxBytes / 1024 / 1024)} MB.`));
            res.destroy();
            return;
          }
          if (!opts.onChunk) {
            chunks.push(chunk);
            return;
          }
          try {
            opts.onChunk(chunk);
          } catch (err) {
            fail(err as Error);
            res.destroy();
          }
        });
        res.on('end', () => {
          if (settled) return;
          settled = true;
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) });
        });
        res.on('error', fail);
      },
    );
    const timer = setTimeout(() => fail(new SsrfError(`${url.origin} did not answer within ${Math.round(timeoutMs / 1000)} s.`)), timeoutMs);
    req.on('error', fail);
    req.on('close', () => clearTimeout(timer));
    req.end(opts.body);
  });
}

/** Outbound URLs are checked when saved (scheme, literal addresses) and again at every send (DNS may change). */
export async function checkUrlField(tx: Kysely<DB>, field: string, value: unknown, errors: ErrorCollector): Promise<void> {
  if (typeof value !== 'string') return;
  const problem = checkOutboundUrl(value, await readAllowlist(tx));
  if (problem) errors.add(field, problem);
}
