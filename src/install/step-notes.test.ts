// After-upgrade steps and the Settings → Backups listing, through the functions and through the API.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import {
  acknowledgeSteps,
  parseStepNotes,
  SHIPPED_STEP_NOTES,
  stepAppliesTo,
  StepNotesError,
  stepNotesStatus,
  type StepNote,
  type StepNotesScope,
} from './step-notes.ts';

let h: Harness;
const backupsDir = mkdtempSync(join(tmpdir(), 'cairn-backups-api-'));

beforeAll(async () => {
  h = await startHarness();
  process.env.CAIRN_BACKUPS_DIR = backupsDir;
});

afterAll(async () => {
  delete process.env.CAIRN_BACKUPS_DIR;
  await h.close();
  rmSync(backupsDir, { recursive: true, force: true });
});

function note(id: string, release: string, extra: Partial<StepNote> = {}): StepNote {
  return { id, release, title: `Title ${id}`, body: 'Body', snippet: `do ${id}`, docs: 'https://example.org/docs', ...extra };
}

const NOTES: StepNote[] = [
  note('1.0.0-a', '1.0.0'),
  note('1.1.0-env', '1.1.0', { detect: { env: 'CAIRN_TEST_STEP_DONE' } }),
  note('1.1.0-ext', '1.1.0', { detect: { extensions: ['no_such_extension'] } }),
  note('1.2.0-final', '1.2.0'),
  note('1.2.0-other-backend', '1.2.0', { backend: 'postgres' }),
  note('2.0.0-future', '2.0.0'),
];

function scope(version: string, env: NodeJS.ProcessEnv = {}): StepNotesScope {
  return { db: h.database.db, version, backend: 'pglite', env, root: null, notes: NOTES };
}

/** An install that was upgraded into the steps feature: nothing is seeded as done. */
async function upgradedInstall(): Promise<void> {
  await sql`DELETE FROM upgrade_step_acks`.execute(h.database.db);
  await sql`UPDATE upgrade_step_baseline SET fresh_install = false, version = NULL`.execute(h.database.db);
}

describe('parseStepNotes', () => {
  it('accepts the shipped file', () => {
    expect(SHIPPED_STEP_NOTES.length).toBeGreaterThan(0);
    for (const n of SHIPPED_STEP_NOTES) expect(n.docs).toMatch(/^https:\/\//);
  });

  it.each([
    [{ steps: [{ ...note('x', '1.0.0'), docs: '' }] }, /\(x\): "docs" must be a non-empty string/],
    [{ steps: [note('x', '1.0.0'), note('x', '1.0.1')] }, /\(x\): id is used twice/],
    [{ steps: [note('x', 'one')] }, /\(x\): release "one" is not a version/],
    [{ steps: [{ ...note('x', '1.0.0'), docs: 'http://example.org' }] }, /\(x\): docs must be an https:\/\/ link/],
    [{ steps: [{ ...note('x', '1.0.0'), detect: { shell: 'true' } }] }, /\(x\): detect must be/],
    [{ steps: [note('bad id', '1.0.0')] }, /id may hold/],
    [{}, /"steps" must be a list/],
  ])('refuses a broken entry (%#)', (data, message) => {
    expect(() => parseStepNotes(data)).toThrow(message);
  });
});

describe('stepAppliesTo', () => {
  it.each([
    ['1.2.0', '1.2.0', true],
    ['1.2.0', '1.2.0-rc.1', true], // a step for X shows on X's pre-releases
    ['1.2.0-rc.2', '1.2.0-rc.1', false],
    ['1.2.0', '1.2.1-dev1', true],
    ['1.2.1', '1.2.0', false],
    ['2.0.0', '1.9.9', false],
  ])('step %s on %s → %s', (release, version, expected) => {
    expect(stepAppliesTo(release, version)).toBe(expected);
  });
});

describe('pending steps', () => {
  beforeEach(upgradedInstall);

  it('lists released steps for this backend that are neither detected done nor acknowledged', async () => {
    const status = await stepNotesStatus(scope('1.2.0-rc.1'));
    expect(status.pending.map((p) => p.id)).toEqual(['1.0.0-a', '1.1.0-env', '1.1.0-ext', '1.2.0-final']);
    expect(status.pending[1]).toMatchObject({ detectable: true, snippet: 'do 1.1.0-env', docs: 'https://example.org/docs' });
    expect(status.completed).toEqual([]);
  });

  it('hides a step its detector finds done', async () => {
    const status = await stepNotesStatus(scope('1.2.0', { CAIRN_TEST_STEP_DONE: '1' }));
    expect(status.pending.map((p) => p.id)).not.toContain('1.1.0-env');
    expect(status.completed).toEqual(['1.1.0-env']);
  });

  it('detects installed database extensions', async () => {
    const notes = [note('ext-present', '1.0.0', { detect: { extensions: ['plpgsql'] } })];
    const status = await stepNotesStatus({ ...scope('1.0.0'), notes });
    expect(status.completed).toEqual(['ext-present']);
  });

  it('acknowledges one step, remembering who', async () => {
    expect(await acknowledgeSteps(scope('1.2.0'), ['1.0.0-a'], 'admin')).toEqual(['1.0.0-a']);
    // Twice is harmless and reports nothing new.
    expect(await acknowledgeSteps(scope('1.2.0'), ['1.0.0-a'], 'admin')).toEqual([]);
    const status = await stepNotesStatus(scope('1.2.0'));
    expect(status.pending.map((p) => p.id)).not.toContain('1.0.0-a');
    expect(status.acknowledged).toEqual([{ id: '1.0.0-a', acknowledged_by: 'admin', acknowledged_at: expect.any(String) }]);
  });

  it('refuses unknown ids as a whole', async () => {
    await expect(acknowledgeSteps(scope('1.2.0'), ['1.0.0-a', 'nope'], 'admin')).rejects.toThrow(StepNotesError);
    await expect(acknowledgeSteps(scope('1.2.0'), ['nope'], 'admin')).rejects.toThrow('unknown after-upgrade step "nope"');
    expect((await stepNotesStatus(scope('1.2.0'))).acknowledged).toEqual([]);
  });

  it('acknowledges all pending steps at once, leaving future ones', async () => {
    const acked = await acknowledgeSteps(scope('1.2.0'), 'all', 'admin');
    expect(acked).toEqual(['1.0.0-a', '1.1.0-env', '1.1.0-ext', '1.2.0-final']);
    expect((await stepNotesStatus(scope('1.2.0'))).pending).toEqual([]);
    // After the next upgrade, that release's steps appear.
    expect((await stepNotesStatus(scope('2.0.0'))).pending.map((p) => p.id)).toEqual(['2.0.0-future']);
  });

  it('a fresh install starts with its own release done; later releases show', async () => {
    await sql`UPDATE upgrade_step_baseline SET fresh_install = true, version = NULL`.execute(h.database.db);
    expect((await stepNotesStatus(scope('1.1.0'))).pending).toEqual([]);
    expect((await stepNotesStatus(scope('1.2.0'))).pending.map((p) => p.id)).toEqual(['1.2.0-final']);
  });
});

describe('API: /api/system/step-notes/', () => {
  beforeEach(upgradedInstall);
  const offsite = '0.1.0-offsite-backups'; // shipped without detector or backend: pending on every deployment

  it('lists pending steps for deployment admins only', async () => {
    const res = await h.as('admin').get('/api/system/step-notes/');
    expect(res.statusCode).toBe(200);
    const body = res.json() as { version: string; pending: { id: string; docs: string; snippet: string }[] };
    expect(body.version).toBe(h.app.cairnVersion);
    expect(body.pending.map((p) => p.id)).toContain(offsite);
    expect((await h.as('alice').get('/api/system/step-notes/')).statusCode).toBe(403);
    expect((await h.as('viewer').get('/api/system/step-notes/')).statusCode).toBe(403);
    expect((await h.as('anonymous').get('/api/system/step-notes/')).statusCode).toBe(401);
  });

  it('acknowledges one step by id; the acknowledgement is deployment-wide', async () => {
    const res = await h.as('admin').post('/api/system/step-notes/ack/', { ids: [offsite] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ newly_acknowledged: [offsite] });
    // The same admin in the other tenant sees the same deployment.
    const other = (await h.as('adminB').get('/api/system/step-notes/')).json() as { pending: { id: string }[]; acknowledged: { id: string; acknowledged_by: string }[] };
    expect(other.pending.map((p) => p.id)).not.toContain(offsite);
    expect(other.acknowledged).toEqual([expect.objectContaining({ id: offsite, acknowledged_by: 'admin' })]);
  });

  it('acknowledges all', async () => {
    const res = await h.as('admin').post('/api/system/step-notes/ack/', { all: true });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ pending: [] });
    expect((res.json() as { newly_acknowledged: string[] }).newly_acknowledged).toContain(offsite);
  });

  it.each([
    [{}, 'non_field_errors'],
    [{ ids: [offsite], all: true }, 'non_field_errors'],
    [{ ids: [] }, 'ids'],
    [{ ids: ['no-such-step'] }, 'ids'],
    [{ ids: [offsite, 'no-such-step'] }, 'ids'],
    [{ all: false }, 'all'],
    [{ ids: offsite }, 'ids'],
    [{ ids: [offsite], extra: 1 }, 'extra'],
  ])('refuses %j with a 400 naming %s, storing nothing', async (body, field) => {
    const res = await h.as('admin').post('/api/system/step-notes/ack/', body);
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json())).toContain(field);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM upgrade_step_acks`.execute(h.database.db);
    expect(rows[0]!.n).toBe(0);
  });

  it('refuses users without users.manage and read-only tokens', async () => {
    expect((await h.as('alice').post('/api/system/step-notes/ack/', { all: true })).statusCode).toBe(403);
    expect((await h.as('aliceRO').post('/api/system/step-notes/ack/', { all: true })).statusCode).toBe(403);
    expect((await h.as('anonymous').post('/api/system/step-notes/ack/', { all: true })).statusCode).toBe(401);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM upgrade_step_acks`.execute(h.database.db);
    expect(rows[0]!.n).toBe(0);
  });
});

describe('API: /api/system/backups/', () => {
  function fakeBackup(id: string, created: string, version: string): void {
    writeFileSync(join(backupsDir, `${id}.tar.gz`), Buffer.alloc(1234));
    writeFileSync(join(backupsDir, `${id}.json`), JSON.stringify({ id, version, created, kind: 'pre-upgrade', backend: 'pglite' }));
  }

  it('lists backups newest first with what restoring needs to know', async () => {
    expect((await h.as('admin').get('/api/system/backups/')).json()).toEqual({ count: 0, next: null, previous: null, kept: 3, results: [] });
    fakeBackup('20260101T000000Z-pre-upgrade-aaaaaa', '2026-01-01T00:00:00.000Z', '0.1.0');
    fakeBackup('20260201T000000Z-pre-upgrade-bbbbbb', '2026-02-01T00:00:00.000Z', '0.1.1');
    writeFileSync(join(backupsDir, 'unrelated.json'), '{}');
    const res = await h.as('admin').get('/api/system/backups/');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      count: 2,
      next: null,
      previous: null,
      kept: 3,
      results: [
        { id: '20260201T000000Z-pre-upgrade-bbbbbb', file: '20260201T000000Z-pre-upgrade-bbbbbb.tar.gz', version: '0.1.1', created: '2026-02-01T00:00:00.000Z', size: 1234, kind: 'pre-upgrade' },
        { id: '20260101T000000Z-pre-upgrade-aaaaaa', file: '20260101T000000Z-pre-upgrade-aaaaaa.tar.gz', version: '0.1.0', created: '2026-01-01T00:00:00.000Z', size: 1234, kind: 'pre-upgrade' },
      ],
    });
  });

  it('is for deployment admins only', async () => {
    expect((await h.as('alice').get('/api/system/backups/')).statusCode).toBe(403);
    expect((await h.as('bob').get('/api/system/backups/')).statusCode).toBe(403);
    expect((await h.as('anonymous').get('/api/system/backups/')).statusCode).toBe(401);
  });
});
