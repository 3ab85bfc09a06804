// Queued work announced at commit (DISPATCH_CHANNEL): a dispatcher whose tick never comes in the test still sends a
// webhook, since the write's transaction woke it; a rolled-back write wakes nobody; on PostgreSQL the listening
// connection comes back after the server dropped it.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { created } from '../../test/helpers/inventory.ts';
import { eventually, startStandin, type Standin } from '../../test/helpers/outbound.ts';
import { recordChanges } from '../core/changelog.ts';
import { systemContext } from '../core/context.ts';
import { uuidv7 } from '../core/ids.ts';
import { requireModel } from '../core/registry.ts';
import { QueueDispatcher } from './host.ts';
import { DISPATCH_CHANNEL } from './registry.ts';

let h: Harness;
let receiver: Standin;

beforeAll(async () => {
  process.env.CAIRN_SSRF_ALLOWLIST = '127.0.0.1';
  h = await startHarness();
  receiver = await startStandin(() => ({ status: 200 }));
  await created(h.as('admin'), '/api/webhooks/', { name: 'notified', payload_url: `${receiver.url}/notified`, object_types: ['extras.tag'], events: ['created'] });
});
afterAll(async () => {
  await receiver?.close();
  await h?.close();
  delete process.env.CAIRN_SSRF_ALLOWLIST;
});

describe('work announced at commit', () => {
  it('a committed write wakes the dispatcher: its webhook goes out with no tick in between', async () => {
    // Midnight of the first of January: no tick during the test.
    const worker = new QueueDispatcher(h.database, { ...process.env, CAIRN_OUTBOUND_TICK: '0 0 0 1 1 *' });
    await worker.start();
    try {
      const tag = await created(h.as('alice'), '/api/tags/', { name: 'woken', slug: 'woken' });
      const sent = await eventually(async () => receiver.received.find((r) => JSON.parse(r.body.toString('utf8')).object_id === tag.id), 'the webhook of the tag');
      expect(sent.url).toBe('/notified');
    } finally {
      await worker.stop();
    }
  });

  it('a rolled-back write announces nothing, nor one that queued nothing; a committed one that queued once', async () => {
    const heard: string[] = [];
    const unlisten = await h.database.listen(DISPATCH_CHANNEL, (payload) => heard.push(payload));
    try {
      await expect(
        h.database.db.transaction().execute(async (tx) => {
          await recordChanges(tx, systemContext(h.tenants.a), [{ model: requireModel('extras.tag'), action: 'create', objectId: uuidv7(), repr: 'ghost', before: null, after: { name: 'ghost' } }]);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      const quiet = await created(h.as('alice'), '/api/tags/', { name: 'quiet', slug: 'quiet' });
      // An update: the webhook asks for creates only, so nothing is queued.
      expect((await h.as('alice').patch(`/api/tags/${quiet.id}/`, { name: 'quiet-2' })).statusCode).toBe(200);
      await created(h.as('alice'), '/api/tags/', { name: 'loud', slug: 'loud' });
      // Notifications arrive in commit order: once this last one is here, every earlier one is.
      await sql`SELECT pg_notify(${DISPATCH_CHANNEL}, 'end of test')`.execute(h.database.db);
      await eventually(async () => (heard.includes('end of test') ? true : undefined), 'the test\'s own notification');
      expect(heard).toEqual(['', '', 'end of test']);
    } finally {
      await unlisten();
    }
  });

  it.runIf(process.env.TEST_DATABASE_URL)('PostgreSQL: listens again after the server dropped its connection', async () => {
    let heard = 0;
    const unlisten = await h.database.listen(DISPATCH_CHANNEL, () => heard++);
    try {
      const listeners = sql<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = ${`LISTEN ${DISPATCH_CHANNEL}`}`;
      const [listener] = (await listeners.execute(h.database.db)).rows;
      expect(listener, 'the listening connection').toBeDefined();
      await sql`SELECT pg_terminate_backend(${listener!.pid})`.execute(h.database.db);
      // Back within a few seconds (RECONNECT_MS), on a connection of its own.
      await eventually(async () => ((await listeners.execute(h.database.db)).rows.some((r) => r.pid !== listener!.pid) ? true : undefined), 'a new listening connection');
      await created(h.as('alice'), '/api/tags/', { name: 'after-drop', slug: 'after-drop' });
      await eventually(async () => (heard > 0 ? true : undefined), 'the announcement after the drop');
    } finally {
      await unlisten();
    }
  });
});
