// Webhooks through a real `cairn serve` process: its embedded worker (the default) delivers a signed change to a
// real HTTPS receiver, so deliveries do not depend on a separate `cairn worker`. Real processes, no timing
// assertions; each wait fails with the server's output.
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually, startStandin, type Standin } from '../../test/helpers/outbound.ts';
import { runCairn, seedMigratedDataDir, startServe, type CairnRun, type CairnServer } from '../../test/helpers/cairn-process.ts';

let tmp: string;
let receiver: Standin;
let server: CairnServer | null = null;

function env(): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', CAIRN_DATA_DIR: join(tmp, 'data'), CAIRN_SSRF_ALLOWLIST: '127.0.0.1' };
  delete e.DATABASE_URL;
  delete e.CAIRN_EMBEDDED_WORKER;
  return e;
}

function cairn(args: string[]): Promise<CairnRun> {
  return runCairn(args, { cwd: tmp, env: env() });
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'cairn-hook-serve-'));
  seedMigratedDataDir(join(tmp, 'data'));
  receiver = await startStandin(() => ({ status: 204 }));
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  rmSync(tmp, { recursive: true, force: true });
});

it('cairn serve delivers a signed webhook with its embedded worker', async () => {
  for (const args of [['tenant', 'create', '--name', 'Hooks', '--slug', 'hooks'], ['createsuperuser', '--username', 'ops', '--password', 'ops-password-1', '--email', 'ops@example.com']]) {
    const r = await cairn(args);
    expect(r.code, r.stderr).toBe(0);
  }
  const token = await cairn(['token', 'create', '--username', 'ops', '--tenant', 'hooks']);
  expect(token.code, token.stderr).toBe(0);
  const headers = { authorization: `Token ${token.stdout.trim()}`, 'content-type': 'application/json' };

  server = await startServe({ cwd: tmp, env: env() });
  const base = server.url;

  const hook = await fetch(`${base}/api/webhooks/`, {
    method: 'POST', headers,
    body: JSON.stringify({ name: 'tags', payload_url: `${receiver.url}/hook`, secret: 'serve-secret', object_types: ['extras.tag'], events: ['created'] }),
  });
  expect(hook.status, await hook.clone().text()).toBe(201);
  const tag = await fetch(`${base}/api/tags/`, { method: 'POST', headers, body: JSON.stringify({ name: 'from-serve', slug: 'from-serve' }) });
  expect(tag.status).toBe(201);
  const tagId = ((await tag.json()) as { id: string }).id;

  const got = await eventually(async () => receiver.received[0], `the delivery (server output: ${server.output()})`, 1200);
  expect(got.headers['x-cairn-signature']).toBe(`sha256=${createHmac('sha256', 'serve-secret').update(got.body).digest('hex')}`);
  expect(JSON.parse(got.body.toString())).toMatchObject({ event: 'created', object_type: 'extras.tag', object_id: tagId, user: 'ops', tenant: { slug: 'hooks' } });
  const deliveries = await eventually(async () => {
    const page = (await (await fetch(`${base}/api/webhook-deliveries/`, { headers })).json()) as { count: number; results: Array<Record<string, unknown>> };
    return page.count === 1 ? page.results : undefined;
  }, 'the delivery record');
  expect(deliveries[0]).toMatchObject({ succeeded: true, status_code: 204, attempt: 1 });
}, 480_000);
