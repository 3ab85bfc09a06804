// Helpers for outbound tests: fixture rows of the read-only outbound models (deploy runs, webhook deliveries) for
// the generated suites, and real HTTPS stand-ins on 127.0.0.1 for automation systems and webhook receivers.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../src/db/types.ts';
import { uuidv7 } from '../../src/core/ids.ts';
import { allocateNumids } from '../../src/core/numids.ts';

/** One deploy run and one webhook delivery in the tenant, on its first device (or none when it has no device). */
export async function seedOutboundRows(db: Kysely<DB>, tenantId: string): Promise<void> {
  const { rows } = await sql<{ id: string }>`SELECT id FROM devices WHERE tenant_id = ${tenantId} ORDER BY id LIMIT 1`.execute(db);
  const device = rows[0];
  if (device) {
    await sql`INSERT INTO deploy_runs (id, numid, tenant_id, device_id, target_name, target_kind, status, status_detail)
      VALUES (${uuidv7()}, ${await allocateNumids(db, tenantId, 'deploy_runs', 1)}, ${tenantId}, ${device.id}, 'fixture', 'awx', 'succeeded', 'fixture row')`.execute(db);
  }
  await sql`INSERT INTO webhook_deliveries (id, numid, tenant_id, webhook_name, event, object_type, object_id, attempt, status_code, succeeded)
    VALUES (${uuidv7()}, ${await allocateNumids(db, tenantId, 'webhook_deliveries', 1)}, ${tenantId}, 'fixture', 'created', 'dcim.device', ${uuidv7()}, 1, 200, true)`.execute(db);
}

/** A request an HTTPS stand-in received, body as the exact bytes sent. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Standin {
  /** https://127.0.0.1:<port> */
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/**
 * A real HTTPS listener on 127.0.0.1 standing in for an external system (AWX, a webhook receiver), with a
 * throw-away certificate made by openssl and trusted through CAIRN_EXTRA_CA_FILE, as the SSRF guard reads it.
 */
export async function startStandin(answer: (req: Received) => { status: number; json?: unknown }): Promise<Standin> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-standin-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '2',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { stdio: 'ignore' });
  const received: Received[] = [];
  const server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      received.push(r);
      const out = answer(r);
      res.writeHead(out.status, { 'content-type': 'application/json' });
      res.end(out.json === undefined ? '' : JSON.stringify(out.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  // Several stand-ins in one file: trust every certificate made so far.
  const bundle = join(tmpdir(), `cairn-standin-ca-${process.pid}.pem`);
  writeFileSync(bundle, readFileSync(join(dir, 'cert.pem')), { flag: 'a' });
  process.env.CAIRN_EXTRA_CA_FILE = bundle;
  return { url: `https://127.0.0.1:${port}`, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Polls `probe` until it returns a value (not undefined), or fails after `tries` × 100 ms. */
export async function eventually<T>(probe: () => Promise<T | undefined>, what: string, tries = 300): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}
