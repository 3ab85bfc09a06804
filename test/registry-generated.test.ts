// Suites generated from the model registry: every registered model, present and future, is checked for
// tenant isolation, read-only token refusal, unauthenticated refusal and bad input without new test code.
// Bodies come from test/helpers/valid-body.ts.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../src/models.ts';
import { allModels, isRequired, type FieldDef, type ModelDef } from '../src/core/registry.ts';
import { startHarness, type Harness } from './helpers/harness.ts';
import { CheckRunner } from '../src/monitoring/runner.ts';
import { BodyGenerator, OVERRIDES, isCreatable, maxLengthOf, tableState, tenantReferences, writableFields, type Body, type Creator, type Json } from './helpers/valid-body.ts';
import { seedOutboundRows } from './helpers/outbound.ts';
import { seedEolMappings } from './helpers/eol-fixture.ts';
import { checkedInThisPass } from './runner/pass-share.ts';

// Each model in one pass when both run (test/runner/pass-share.ts).
const models = allModels().filter((m) => checkedInThisPass(m.name));
const listed = models.filter((m) => m.operations.list);
const tenantModels = listed.filter((m) => m.tenantScoped);
const globalModels = listed.filter((m) => !m.tenantScoped);
const writable = models.filter((m) => m.operations.create || m.operations.update);
/** Models created by a dedicated route rather than the generic POST (the token route returns the key once). */
const CUSTOM_CREATE = new Set(['users.token']);

let h: Harness;
let gen: BodyGenerator;

beforeAll(async () => {
  h = await startHarness();
  gen = new BodyGenerator(h);
  // One row of every creatable model in each tenant, so list-only models (the change log) have rows too; and of
  // every monitoring model, whose services and checks the runner's results and events below are made from.
  for (const m of allModels().filter((x) => models.includes(x) || x.name.startsWith('monitoring.'))) {
    if (!isCreatable(m)) continue;
    await gen.ensureRow(m.name, 'admin');
    await gen.ensureRow(m.name, 'adminB');
  }
  // Check results and events are written only by the check runner: two rounds of an always-up probe give every
  // tenant's assignments a result each round and one state change.
  const runner = new CheckRunner(h.database.db, { probe: async () => ({ status: 'up', latencyMs: 1, detail: 'generated' }) });
  await runner.runUntilIdle(new Date(Date.now() + 3_600_000));
  await runner.runUntilIdle(new Date(Date.now() + 7_200_000));
  // Deploy runs and webhook deliveries are written by the outbound worker only: one fixture row per tenant.
  for (const tenant of [h.tenants.a, h.tenants.b]) await seedOutboundRows(h.database.db, tenant);
  // End-of-life mappings are written through their platform's endpoint only: one per tenant.
  await seedEolMappings(h, [
    ['admin', await gen.ensureRow('dcim.platform', 'admin')],
    ['adminB', await gen.ensureRow('dcim.platform', 'adminB')],
  ]);
});
afterAll(async () => {
  await h?.close();
});

function detailUrl(model: ModelDef, id: string): string {
  return `${model.path}${id}/`;
}

/** A row of `model` owned by `who`'s tenant (or, for global models, visible to `who`). */
async function rowOf(model: ModelDef, who: Creator): Promise<string> {
  if (model.operations.create) return gen.ensureRow(model.name, who);
  // Rows of models without a generic create (tokens, the change log) are picked from what `who` can list.
  const { ids } = await listIds(who, model);
  expect(ids.length, `a ${model.name} row visible to ${who}`).toBeGreaterThan(0);
  return ids[0]!;
}

async function listIds(who: Parameters<Harness['as']>[0], model: ModelDef, query = ''): Promise<{ count: number; ids: string[] }> {
  const res = await h.as(who).get(`${model.path}?limit=1000${query}`);
  expect(res.statusCode, res.body).toBe(200);
  const page = res.json() as { count: number; results: Array<{ id: string }> };
  return { count: page.count, ids: page.results.map((r) => r.id) };
}

function expectFieldError(res: { statusCode: number; body: string; json(): unknown }, key: string, what: string): void {
  expect(res.statusCode, `${what}: ${res.body}`).toBe(400);
  const body = res.json() as Record<string, unknown>;
  expect(Array.isArray(body[key]), `${what}: the answer names "${key}": ${res.body}`).toBe(true);
  for (const m of body[key] as unknown[]) expect(typeof m).toBe('string');
}

describe('tenant isolation (generated)', () => {
  it.each(tenantModels.map((m) => [m.name, m] as const))('%s: lists, details and writes stay inside the tenant', async (_name, model) => {
    const rowA = await rowOf(model, 'admin');
    const rowB = await rowOf(model, 'adminB');
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(model.table)} WHERE tenant_id = ${h.tenants.a}`.execute(h.database.db);

    const listA = await listIds('admin', model);
    expect(listA.ids).toContain(rowA);
    expect(listA.ids).not.toContain(rowB);
    expect(listA.count).toBe(rows[0]!.n);
    const listB = await listIds('adminB', model);
    expect(listB.ids).toContain(rowB);
    expect(listB.ids).not.toContain(rowA);
    // A filter naming the other tenant's id finds nothing.
    expect((await listIds('admin', model, `&id=${rowB}`)).count).toBe(0);

    const missing = await h.as('admin').get(detailUrl(model, randomUUID()));
    expect(missing.statusCode).toBe(404);
    expect((await h.as('admin').get(detailUrl(model, rowA))).statusCode).toBe(200);
    const other = await h.as('admin').get(detailUrl(model, rowB));
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual(missing.json());

    const before = await tableState(h, model);
    if (model.operations.update) {
      const body = model.operations.create ? await gen.body(model, 'admin') : {};
      for (const method of ['put', 'patch'] as const) {
        const res = await h.as('admin')[method](detailUrl(model, rowB), body);
        expect(res.statusCode, `${method} of the other tenant's row: ${res.body}`).toBe(404);
        expect(res.json()).toEqual(missing.json());
      }
    }
    if (model.operations.delete) {
      const res = await h.as('admin').delete(detailUrl(model, rowB));
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json()).toEqual(missing.json());
    }
    expect(await tableState(h, model)).toBe(before);
  });

  const withRefs = writable.filter((m) => !CUSTOM_CREATE.has(m.name) && tenantReferences(m).length > 0);
  it.each(withRefs.map((m) => [m.name, m] as const))("%s: a reference to another tenant's row is refused with 400 naming the field", async (_name, model) => {
    const rowA = model.operations.update ? await rowOf(model, 'admin') : null;
    for (const ref of tenantReferences(model)) {
      const foreign = await gen.ensureRow(ref.target.name, 'adminB');
      const value: Json = ref.many ? [foreign] : foreign;
      const before = await tableState(h, model);
      if (model.operations.create) {
        const body = { ...(await gen.body(model, 'admin')), [ref.key]: value };
        expectFieldError(await h.as('admin').post(model.path, body), ref.key, `create with ${ref.key} of tenant beta`);
      }
      if (rowA) expectFieldError(await h.as('admin').patch(detailUrl(model, rowA), { [ref.key]: value }), ref.key, `patch with ${ref.key} of tenant beta`);
      expect(await tableState(h, model), `nothing changed after refusing ${ref.key}`).toBe(before);
    }
  });

  it.each(globalModels.map((m) => [m.name, m] as const))('%s: a global model is admin-only or scoped to the caller', async (_name, model) => {
    const alice = h.as('alice');
    const { rows } = await sql<{ id: string }>`SELECT id FROM ${sql.table(model.table)} ORDER BY id`.execute(h.database.db);
    expect(rows.length).toBeGreaterThan(0);
    const list = await alice.get(`${model.path}?limit=1000`);
    if (model.adminOnly && !model.access) {
      expect(list.statusCode).toBe(403);
      expect((await alice.get(detailUrl(model, rows[0]!.id))).statusCode).toBe(403);
      if (model.operations.create) expect((await alice.post(model.path, await gen.body(model, 'admin'))).statusCode).toBe(403);
      return;
    }
    expect(list.statusCode, list.body).toBe(200);
    const visible = new Set((list.json() as { results: Array<{ id: string }> }).results.map((r) => r.id));
    if (!model.globalScope) return;
    // The scope hides something: every hidden row answers exactly like a random id.
    const hidden = rows.map((r) => r.id).filter((id) => !visible.has(id));
    expect(hidden.length, `${model.name} hides rows outside alice's scope`).toBeGreaterThan(0);
    const missing = await alice.get(detailUrl(model, randomUUID()));
    for (const id of hidden.slice(0, 5)) {
      const res = await alice.get(detailUrl(model, id));
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual(missing.json());
      // Writes too: whatever alice may do, a hidden id answers exactly as an id that does not exist (404, or 403
      // when she may not change such rows at all).
      if (model.operations.update) {
        const random = await alice.patch(detailUrl(model, randomUUID()), {});
        expect((await alice.patch(detailUrl(model, id), {})).statusCode).toBe(random.statusCode);
      }
      if (model.operations.delete) {
        const random = await alice.delete(detailUrl(model, randomUUID()));
        expect((await alice.delete(detailUrl(model, id))).statusCode).toBe(random.statusCode);
      }
    }
  });
});

/** Every write route of every model, with a body the route would accept from an allowed caller. */
async function writeRoutes(): Promise<Array<{ model: ModelDef; method: 'post' | 'put' | 'patch' | 'delete'; url: string; body?: Body }>> {
  const out: Array<{ model: ModelDef; method: 'post' | 'put' | 'patch' | 'delete'; url: string; body?: Body }> = [];
  for (const model of models) {
    if (model.operations.create || CUSTOM_CREATE.has(model.name)) out.push({ model, method: 'post', url: model.path, body: await gen.body(model, 'admin') });
    const id = model.operations.update || model.operations.delete ? await rowOf(model, 'admin') : null;
    if (id && model.operations.update) {
      const body = model.operations.create ? await gen.body(model, 'admin') : {};
      out.push({ model, method: 'put', url: detailUrl(model, id), body }, { model, method: 'patch', url: detailUrl(model, id), body });
    }
    if (id && model.operations.delete) out.push({ model, method: 'delete', url: detailUrl(model, id) });
  }
  return out;
}

async function everyTableState(): Promise<string[]> {
  return Promise.all(models.map((m) => tableState(h, m)));
}

describe('read-only token (generated)', () => {
  it('refuses every write route of every model with 403 and changes nothing', async () => {
    const routes = await writeRoutes();
    expect(routes.length).toBeGreaterThan(models.length);
    const before = await everyTableState();
    for (const r of routes) {
      const res = await h.as('aliceRO')[r.method](r.url, r.body);
      expect(res.statusCode, `${r.method.toUpperCase()} ${r.url}: ${res.body}`).toBe(403);
    }
    expect(await everyTableState()).toEqual(before);
    // The same token still reads.
    expect((await h.as('aliceRO').get('/api/tags/')).statusCode).toBe(200);
  });
});

describe('unauthenticated (generated)', () => {
  it('answers 401 on every list, detail and write route, and on the API reference', async () => {
    const routes = await writeRoutes();
    const before = await everyTableState();
    const urls: Array<{ method: 'get' | 'post' | 'put' | 'patch' | 'delete'; url: string; body?: Body }> = [...routes];
    for (const model of listed) urls.push({ method: 'get', url: model.path }, { method: 'get', url: detailUrl(model, await rowOf(model, 'admin')) });
    // (`/api/` without credentials is NetBox's API root for API clients; a bad token there is refused below.)
    for (const url of ['/api/docs/', '/api/docs/redoc/', '/api/schema/', '/api/auth/me/']) urls.push({ method: 'get', url });
    for (const r of urls) {
      const res = await h.as('anonymous')[r.method](r.url, r.body);
      expect(res.statusCode, `${r.method.toUpperCase()} ${r.url}`).toBe(401);
      // A wrong token is no better than none (and past a few, the address is throttled: 429).
      const bad = await h.app.inject({ method: r.method.toUpperCase() as 'GET', url: r.url, headers: { authorization: 'Token nope' }, ...(r.body ? { payload: r.body } : {}) });
      expect([401, 429], `${r.method.toUpperCase()} ${r.url} with a bad token`).toContain(bad.statusCode);
    }
    expect(await everyTableState()).toEqual(before);
    // (By now the address is throttled for its failed token checks: 429, no better than 401.)
    expect([401, 429]).toContain((await h.app.inject({ method: 'GET', url: '/api/', headers: { authorization: 'Token nope' } })).statusCode);
    expect((await h.as('anonymous').get('/api/health/')).statusCode).toBe(200);
  });
});

/** Values of the wrong type or shape for a field, each labelled for the failure message. */
function badValues(field: FieldDef, key: string, model: ModelDef): Array<[string, Json]> {
  const cases: Array<[string, Json]> = [];
  if (!field.nullable) cases.push(['null', null]);
  const max = maxLengthOf(field);
  switch (field.kind) {
    case 'string':
    case 'text':
    case 'slug':
    case 'url':
      cases.push(['a number', 12345], ['an object', { a: 1 }], ['a boolean', true], ['a list', ['x']], [`${max! + 1} characters`, 'x'.repeat(max! + 1)]);
      if (field.kind === 'slug') cases.push(['not a slug', 'not a slug!']);
      if (field.kind === 'url') cases.push(['not a url', 'not a url']);
      break;
    case 'integer':
      cases.push(['a string', '12'], ['a fraction', 1.5], ['an object', {}], ['a boolean', true]);
      if (field.min !== undefined) cases.push(['below the minimum', field.min - 1]);
      if (field.max !== undefined) cases.push(['above the maximum', field.max + 1]);
      break;
    case 'decimal':
      cases.push(['a boolean', true], ['an object', {}], ['text', 'abc']);
      if (field.min !== undefined) cases.push(['below the minimum', field.min - 1]);
      if (field.max !== undefined) cases.push(['above the maximum', field.max + 1]);
      break;
    case 'boolean':
      cases.push(['an object', {}], ['a string', 'true'], ['a number', 1]);
      break;
    case 'date':
      cases.push(['a number', 20240101], ['an impossible date', '2024-02-30'], ['text', 'yesterday']);
      break;
    case 'datetime':
      cases.push(['a number', 1], ['text', 'yesterday'], ['an object', {}]);
      break;
    case 'json':
      if (field.jsonObject) cases.push(['a list', [1]], ['a string', 'x']);
      break;
    case 'custom_fields':
      cases.push(['a list', []], ['a string', 'x']);
      break;
    case 'choice':
      cases.push(['an unknown choice', 'no-such-choice'], ['a number', 5], ['an object', {}]);
      break;
    case 'color':
      cases.push(['not hex', 'zzzzzz'], ['a number', 5]);
      break;
    case 'inet':
      cases.push(['not an address', '300.1.1.1'], ['a number', 5], ['a short form', '10.1']);
      break;
    case 'cidr':
      cases.push(['host bits set', '10.0.0.1/24'], ['no mask', 'abc'], ['a number', 5]);
      break;
    case 'uuid':
    case 'fk':
      cases.push(['a malformed id', 'not-a-uuid'], ['a number', 5], ['an object', { id: randomUUID() }]);
      if (field.kind === 'fk' || OVERRIDES[model.name]?.references?.[key]) cases.push(['an id that does not exist', randomUUID()]);
      break;
    case 'm2m':
    case 'tags':
      cases.push(['not a list', 'x'], ['a malformed id', ['not-a-uuid']], ['an id that does not exist', [randomUUID()]]);
      break;
    case 'string_list':
      cases.push(['not a list', 'x'], ['numbers', [1]]);
      break;
    case 'integer_list':
      cases.push(['not a list', 'x'], ['strings', ['a']]);
      break;
  }
  return cases;
}

describe('bad input (generated)', () => {
  const targets = writable.filter((m) => !CUSTOM_CREATE.has(m.name) || m.operations.update);
  it.each(targets.map((m) => [m.name, m] as const))('%s: wrong types, unknown fields, over-long strings, malformed ids → 400 naming the field, nothing changed', async (_name, model) => {
    const admin = h.as('admin');
    const canCreate = model.operations.create;
    const rowA = model.operations.update ? await rowOf(model, 'admin') : null;
    const attempts: Array<{ key: string; what: string; value: Json }> = [];
    for (const [key, field] of writableFields(model)) for (const [what, value] of badValues(field, key, model)) attempts.push({ key, what, value });
    attempts.push({ key: 'no_such_field', what: 'an unknown field', value: 'x' });
    // A name every JavaScript object has: looked up in a plain object, it found Object's member (a 500).
    attempts.push({ key: 'constructor', what: "a name of Object's own", value: 'x' });
    attempts.push({ key: 'id', what: 'a read-only key', value: randomUUID() });
    for (const [key, field] of Object.entries(model.fields)) if (field.readOnly) attempts.push({ key, what: 'a read-only field', value: 'x' });

    let state = await tableState(h, model);
    for (const a of attempts) {
      if (canCreate) {
        const body = { ...(await gen.body(model, 'admin')), [a.key]: a.value };
        expectFieldError(await admin.post(model.path, body), a.key, `create with ${a.key} = ${a.what}`);
      }
      if (rowA) expectFieldError(await admin.patch(detailUrl(model, rowA), { [a.key]: a.value }), a.key, `patch with ${a.key} = ${a.what}`);
      // Generated bodies may create related rows of other models, never of this one.
      const now = await tableState(h, model);
      expect(now, `nothing changed after ${a.key} = ${a.what}`).toBe(state);
      state = now;
    }

    if (canCreate) {
      for (const [key, field] of writableFields(model)) {
        if (!isRequired(field)) continue;
        const body = await gen.body(model, 'admin');
        delete body[key];
        expectFieldError(await admin.post(model.path, body), key, `create without ${key}`);
      }
      // A list creates several (NetBox's form): an item that is not an object is named by its index.
      expectFieldError(await admin.post(model.path, ['not', 'an', 'object']), '[0].non_field_errors', 'a list of non-objects');
    }

    // Malformed ids in the URL.
    for (const bad of ['not-a-uuid', '1234', `${randomUUID()}x`]) {
      const url = detailUrl(model, bad);
      if (model.operations.list) expectFieldError(await admin.get(url), 'id', `GET ${url}`);
      if (model.operations.update) {
        expectFieldError(await admin.patch(url, {}), 'id', `PATCH ${url}`);
        expectFieldError(await admin.put(url, canCreate ? await gen.body(model, 'admin') : {}), 'id', `PUT ${url}`);
      }
      if (model.operations.delete) expectFieldError(await admin.delete(url), 'id', `DELETE ${url}`);
    }
    expect(await tableState(h, model)).toBe(state);
    if (canCreate) {
      const broken = await h.app.inject({ method: 'POST', url: model.path, headers: { authorization: `Token ${h.tokens.admin}`, 'content-type': 'application/json' }, payload: '{"name": ' });
      expect(broken.statusCode).toBe(400);
      expect(await tableState(h, model)).toBe(state);
    }

    // The boundary itself is accepted: a string of exactly the advertised maximum fits the column (a column
    // shorter than the field's maxLength would answer 400 without naming the field, or 500).
    for (const [key, field] of writableFields(model)) {
      const max = maxLengthOf(field);
      if (max === null || max > 10_000 || field.pattern) continue;
      const base = gen.stringFor(model, key, field);
      const value = field.kind === 'url' ? `${base}/${'x'.repeat(Math.max(0, max - base.length - 1))}` : `${base}${'x'.repeat(Math.max(0, max - base.length))}`;
      if (value.length !== max) continue;
      const res = canCreate
        ? await admin.post(model.path, { ...(await gen.body(model, 'admin')), [key]: value })
        : rowA
          ? await admin.patch(detailUrl(model, rowA), { [key]: value })
          : null;
      if (!res) continue;
      // Domain rules (grammars, one-per-device) may still refuse the value, naming a field; the database may not.
      expect(res.statusCode, `${key} of exactly ${max} characters: ${res.body}`).toBeLessThan(500);
      expect(res.json(), `${key} of exactly ${max} characters`).not.toHaveProperty('non_field_errors');
    }
  });

  it.each(listed.map((m) => [m.name, m] as const))('%s: malformed list filters and paging → 400 naming the parameter', async (_name, model) => {
    const admin = h.as('admin');
    expectFieldError(await admin.get(`${model.path}?no_such_filter=1`), 'no_such_filter', 'unknown filter');
    expectFieldError(await admin.get(`${model.path}?id=not-a-uuid`), 'id', 'malformed id filter');
    expectFieldError(await admin.get(`${model.path}?limit=0`), 'limit', 'limit 0');
    expectFieldError(await admin.get(`${model.path}?limit=abc`), 'limit', 'limit abc');
    expectFieldError(await admin.get(`${model.path}?offset=-1`), 'offset', 'offset -1');
    expectFieldError(await admin.get(`${model.path}?ordering=no_such_field`), 'ordering', 'ordering by an unknown field');
    // Names every JavaScript object has are no filter and no field (they answered 500).
    expectFieldError(await admin.get(`${model.path}?__proto__=1&constructor=1`), '__proto__', 'filter __proto__');
    expectFieldError(await admin.get(`${model.path}?constructor=1`), 'constructor', 'filter constructor');
    expectFieldError(await admin.get(`${model.path}?ordering=__proto__`), 'ordering', 'ordering by __proto__');
    for (const [key, field] of Object.entries(model.fields)) {
      if (field.kind === 'fk') {
        // A fk filter takes an id or a slug; a value that is neither simply matches nothing, never a 500.
        const res = await admin.get(`${model.path}?${key}=${encodeURIComponent("x' OR 1=1 --")}`);
        expect(res.statusCode, res.body).toBe(200);
        expect((res.json() as { count: number }).count).toBe(0);
      }
      if (field.kind === 'integer') expectFieldError(await admin.get(`${model.path}?${key}=abc`), key, `${key}=abc`);
      if (field.kind === 'boolean') expectFieldError(await admin.get(`${model.path}?${key}=maybe`), key, `${key}=maybe`);
      if (field.kind === 'date' || field.kind === 'datetime') expectFieldError(await admin.get(`${model.path}?${key}__gte=notadate`), `${key}__gte`, `${key}__gte=notadate`);
    }
  });
});

describe('hand-written routes under an object (generated from the API document)', () => {
  it("every GET <list>/{id}/… answers for another tenant's id exactly as for an id that does not exist", async () => {
    const doc = h.app.swagger() as { paths: Record<string, Record<string, unknown>> };
    const covered: string[] = [];
    for (const model of tenantModels) {
      const prefix = `${model.path}{id}/`;
      for (const [path, methods] of Object.entries(doc.paths)) {
        if (!path.startsWith(prefix) || path === prefix || !('get' in methods)) continue;
        const rest = path.slice(prefix.length);
        if (rest.includes('{')) continue; // a second parameter: not a route about this one object alone
        const theirs = await rowOf(model, 'adminB');
        const mine = await rowOf(model, 'admin');
        const other = await h.as('admin').get(`${model.path}${theirs}/${rest}`);
        const missing = await h.as('admin').get(`${model.path}${randomUUID()}/${rest}`);
        expect(other.statusCode, `${path}: ${other.body.slice(0, 200)}`).toBe(missing.statusCode);
        expect(other.body, path).toBe(missing.body);
        // The route does answer for the caller's own object (so the 404 above is about the tenant, not the route).
        expect((await h.as('admin').get(`${model.path}${mine}/${rest}`)).statusCode, path).not.toBe(missing.statusCode === 404 ? 404 : -1);
        covered.push(path);
      }
    }
    // Devices alone have a dozen (render, config, compliance, …): a walk that found few has lost its routes.
    expect(covered.length, covered.join("\n")).toBeGreaterThanOrEqual(10);
  });
});
