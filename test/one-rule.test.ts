// Issue #54's acceptance test for "one write pipeline": ONE new validation rule, registered once on a model through
// the core's addModelHook, must be enforced by every road that writes that model: a single POST, PUT and PATCH, the
// list forms (POST and PATCH of a list), bulk-update, the spreadsheet import, and the bulk load that demo data and
// the NetBox import write through. Each refusal is a 400 naming the field, and nothing is written.
//
// The rule is a throwaway on organization.site (NetBox's dcim.site): a site whose description is 'forbidden-by-test'
// is refused. Test files share a process one after another (vitest isolate: false), so the hook, once added, stays
// on the model for the files that follow: it only acts while `ruleOn` is set, which this file sets in beforeAll and
// clears in afterAll.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { addModelHook, requireModel } from '../src/core/registry.ts';
import { fieldError } from '../src/core/errors.ts';
import { systemContext } from '../src/core/context.ts';
import { BulkLoad } from '../src/core/crud/bulk-load.ts';
import { startHarness, type Harness } from './helpers/harness.ts';
import '../src/models.ts';

const FORBIDDEN = 'forbidden-by-test';
const MESSAGE = 'This description is refused by the one-rule test.';

class RolledBack extends Error {}

let ruleOn = false;
let ruleAdded = false;
function addRuleOnce(): void {
  if (ruleAdded) return;
  ruleAdded = true;
  addModelHook('organization.site', 'validate', async ({ input, existing }) => {
    if (!ruleOn) return;
    const description = 'description' in input ? input.description : existing?.description;
    if (description === FORBIDDEN) throw fieldError('description', MESSAGE);
  });
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  addRuleOnce();
  ruleOn = true;
});
afterAll(async () => {
  ruleOn = false;
  await h?.close();
});

/** Every site row and every change-log row of sites, as one text: equal before and after means nothing was written. */
async function sitesState(): Promise<string> {
  const { rows } = await sql<{ s: string }>`SELECT
      (SELECT coalesce(md5(string_agg(t::text, ',' ORDER BY id)), '') FROM sites t) || ':' ||
      (SELECT count(*) FROM object_changes WHERE object_type = 'organization.site')::text AS s`.execute(h.database.db);
  return rows[0]!.s;
}

let seq = 0;
async function makeSite(): Promise<string> {
  seq++;
  const res = await h.as('alice').post('/api/sites/', { name: `rule-site-${seq}`, slug: `rule-site-${seq}` });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

/** A 400 whose body names `description` with the rule's message (under whatever prefix the path adds). */
function expectRefusedByRule(res: { statusCode: number; body: string }): void {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.body).toContain('description');
  expect(res.body).toContain(MESSAGE);
}

describe('one rule, every write path', () => {
  it('the rule lets other descriptions through (the control)', async () => {
    const id = await makeSite();
    const res = await h.as('alice').patch(`/api/sites/${id}/`, { description: 'fine' });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('single POST', async () => {
    const before = await sitesState();
    const res = await h.as('alice').post('/api/sites/', { name: 'post-x', slug: 'post-x', description: FORBIDDEN });
    expectRefusedByRule(res);
    expect(res.json()).toEqual({ description: [MESSAGE] });
    expect(await sitesState()).toBe(before);
  });

  it('POST of a list (NetBox form)', async () => {
    const before = await sitesState();
    const res = await h.as('alice').post('/api/sites/', [
      { name: 'list-ok', slug: 'list-ok' },
      { name: 'list-x', slug: 'list-x', description: FORBIDDEN },
    ]);
    expectRefusedByRule(res);
    expect(await sitesState()).toBe(before);
  });

  it('single PATCH', async () => {
    const id = await makeSite();
    const before = await sitesState();
    const res = await h.as('alice').patch(`/api/sites/${id}/`, { description: FORBIDDEN });
    expectRefusedByRule(res);
    expect(res.json()).toEqual({ description: [MESSAGE] });
    expect(await sitesState()).toBe(before);
  });

  it('PUT', async () => {
    const id = await makeSite();
    const before = await sitesState();
    const res = await h.as('alice').put(`/api/sites/${id}/`, { name: `put-${id.slice(-6)}`, slug: `put-${id.slice(-6)}`, description: FORBIDDEN });
    expectRefusedByRule(res);
    expect(await sitesState()).toBe(before);
  });

  it('PATCH of a list (NetBox bulk update)', async () => {
    const a = await makeSite();
    const b = await makeSite();
    const before = await sitesState();
    const res = await h.as('alice').patch('/api/sites/', [
      { id: a, description: 'fine' },
      { id: b, description: FORBIDDEN },
    ]);
    expectRefusedByRule(res);
    expect(await sitesState()).toBe(before);
  });

  it('bulk-update', async () => {
    const a = await makeSite();
    const b = await makeSite();
    const before = await sitesState();
    const res = await h.as('alice').post('/api/sites/bulk-update/', { ids: [a, b], fields: { description: FORBIDDEN } });
    expectRefusedByRule(res);
    expect(await sitesState()).toBe(before);
  });

  it('spreadsheet import: a created row and an updated row', async () => {
    const before = await sitesState();
    const created = await h.as('alice').post('/api/sites/import/', { format: 'csv', data: `name,slug,description\nimp-ok,imp-ok,fine\nimp-x,imp-x,${FORBIDDEN}\n` });
    expect(created.statusCode, created.body).toBe(400);
    expect(created.json()).toEqual({ errors: [{ row: 2, field: 'description', message: MESSAGE }] });
    expect(await sitesState()).toBe(before);

    const id = await makeSite();
    const before2 = await sitesState();
    const updated = await h.as('alice').post('/api/sites/import/', { format: 'json', data: JSON.stringify([{ id, description: FORBIDDEN }]) });
    expect(updated.statusCode, updated.body).toBe(400);
    expect(updated.json()).toEqual({ errors: [{ row: 1, field: 'description', message: MESSAGE }] });
    expect(await sitesState()).toBe(before2);
  });

  // Demo data (src/system/demo-data.ts) and the NetBox import write through BulkLoad, which by design runs no
  // per-row validation hook (src/core/crud/bulk-load.ts, its header): its callers hand it rows their own plan
  // already satisfies. That is a gap against issue #54 ("… import and demo data"). This expectation pins today's
  // behaviour so that closing the gap has to change it: when BulkLoad runs validate hooks, the write below must be
  // refused, and this test turns into the refusal it should be.
  it('KNOWN GAP (issue #54): BulkLoad, the path of demo data and the NetBox import, does not run validate hooks', async () => {
    const site = requireModel('organization.site');
    let written = -1;
    let refusal: unknown = null;
    // Rolled back by a throw once counted: nothing is left for the other tests of this file.
    await h.database.db.transaction().execute(async (tx) => {
      const load = new BulkLoad(tx, systemContext(h.tenants.a, 'one-rule-test'));
      const { ids, numids } = await load.identities(site, 1);
      try {
        await load.insert(site, [['id', 'uuid'], ['numid', 'int8'], ['name', 'text'], ['slug', 'text'], ['description', 'text']], [ids, numids, ['load-x'], ['load-x'], [FORBIDDEN]]);
      } catch (err) {
        refusal = err;
      }
      if (!refusal) written = (await sql<{ n: number }>`SELECT count(*)::int AS n FROM sites WHERE id = ${ids[0]!}`.execute(tx)).rows[0]!.n;
      throw new RolledBack();
    }).catch((err: unknown) => {
      if (!(err instanceof RolledBack)) throw err;
    });
    // A refusal means the gap is closed: turn this test into a refusal check (400 naming description, nothing kept).
    expect(refusal, 'BulkLoad refused the forbidden site: the gap is closed, make this test expect the refusal').toBeNull();
    expect(written).toBe(1);
    expect((await sql<{ n: number }>`SELECT count(*)::int AS n FROM sites WHERE slug = 'load-x'`.execute(h.database.db)).rows[0]!.n).toBe(0);
  });
  it.todo('demo data / BulkLoad enforces model validate hooks (issue #54: one pipeline for imports and demo data)');
});
