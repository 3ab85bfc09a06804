// Compliance rules: end-of-life status (silent while the feature is off), required fields and patterns on device
// fields and custom fields, evaluated on change and on demand, summaries on list rows, tenant isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { setToday } from '../lifecycle/status.ts';
import { evaluationSummary } from './service.ts';

let h: Harness;
let device: { id: string };
let platformId: string;

function multipart(bytes: Buffer): { payload: Buffer; headers: Record<string, string> } {
  const boundary = '----cairncompliance';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="full.json"\r\nContent-Type: application/json\r\n\r\n`);
  return { payload: Buffer.concat([head, bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

beforeAll(async () => {
  h = await startHarness();
  setToday('2026-11-21');
  const admin = h.as('admin');
  const site = (await admin.post('/api/sites/', { name: 'C site', slug: 'c-site' })).json().id;
  const mf = (await admin.post('/api/manufacturers/', { name: 'C mf', slug: 'c-mf' })).json().id;
  const dt = (await admin.post('/api/device-types/', { manufacturer: mf, model: 'C box', slug: 'c-box' })).json().id;
  const role = (await admin.post('/api/device-roles/', { name: 'C role', slug: 'c-role' })).json().id;
  platformId = (await admin.post('/api/platforms/', { name: 'Old OS 1', slug: 'old-os-1' })).json().id;
  const res = await admin.post('/api/devices/', { name: 'c-dev', device_type: dt, role, site, platform: platformId, serial: '' });
  expect(res.statusCode, res.body).toBe(201);
  device = res.json();
});
afterAll(async () => {
  setToday(null);
  await h?.close();
});

describe('compliance rules', () => {
  it("says what an evaluation did in words: one rule, not '1 rules'", () => {
    expect(evaluationSummary({ rules: 1, violations: 1 })).toBe('1 rule evaluated, 1 violation');
    expect(evaluationSummary({ rules: 3, violations: 0 })).toBe('3 rules evaluated, 0 violations');
  });

  it('refuses rules whose settings do not fit their kind', async () => {
    const bad = [
      { name: 'r1', object_type: 'dcim.device', check_kind: 'eol_status', settings: {} },
      { name: 'r2', object_type: 'dcim.device', check_kind: 'eol_status', settings: { fail_on: 'later' } },
      { name: 'r3', object_type: 'dcim.device', check_kind: 'field_required', settings: { field: 'nope' } },
      { name: 'r4', object_type: 'dcim.device', check_kind: 'field_regex', settings: { field: 'name', pattern: '(' } },
      { name: 'r5', object_type: 'dcim.site', check_kind: 'field_required', settings: { field: 'name' } },
      { name: 'r6', object_type: 'dcim.device', check_kind: 'field_required', settings: { field: 'serial', extra: 1 } },
    ];
    for (const body of bad) {
      const res = await h.as('admin').post('/api/compliance/rules/', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect((await h.as('admin').get('/api/compliance/rules/')).json().count).toBe(0);
    // No rule judges devices: not "compliant", but nothing to be compliant with; the list row says so too.
    expect((await h.as('admin').get(`/api/devices/${device.id}/compliance/`)).json()).toMatchObject({ state: 'no_rules', compliant: false, rules: 0, count: 0 });
    expect((await h.as('admin').get(`/api/devices/?name=c-dev`)).json().results[0].compliance).toEqual({ violations: 0, rules: 0 });
    expect((await h.as('admin').get(`/api/devices/${device.id}/`)).json().compliance).toEqual({ violations: 0, rules: 0 });
  });

  it('field_required and field_regex fail, are listed, summarised on rows and follow changes', async () => {
    const req = await h.as('admin').post('/api/compliance/rules/', { name: 'serial set', object_type: 'dcim.device', check_kind: 'field_required', settings: { field: 'serial' } });
    expect(req.statusCode, req.body).toBe(201);
    const re = await h.as('admin').post('/api/compliance/rules/', { name: 'name style', object_type: 'dcim.device', check_kind: 'field_regex', settings: { field: 'name', pattern: '^[a-z]+-[a-z]+\\d$' } });
    expect(re.statusCode, re.body).toBe(201);
    const mine = await h.as('admin').get(`/api/devices/${device.id}/compliance/`);
    expect(mine.json()).toMatchObject({ state: 'violations', compliant: false, rules: 2, count: 2 });
    expect((await h.as('admin').get(`/api/devices/?name=c-dev`)).json().results[0].compliance).toEqual({ violations: 2, rules: 2 });
    const since = mine.json().violations.find((v: { rule: { name: string } }) => v.rule.name === 'name style').since;
    await h.as('admin').patch(`/api/devices/${device.id}/`, { serial: 'SN1' });
    const after = (await h.as('admin').get(`/api/devices/${device.id}/compliance/`)).json();
    expect(after.count).toBe(1);
    expect(after.violations[0].since).toBe(since);
    expect((await h.as('admin').get('/api/compliance/violations/')).json().count).toBe(1);
    // Tenant B sees none of it.
    expect((await h.as('bob').get('/api/compliance/violations/')).json().count).toBe(0);
    expect((await h.as('bob').get(`/api/devices/${device.id}/compliance/`)).statusCode).toBe(404);
  });

  it('eol_status reports nothing while the feature is off, and fails on the chosen statuses when on', async () => {
    const rule = await h.as('admin').post('/api/compliance/rules/', { name: 'eol', object_type: 'dcim.device', check_kind: 'eol_status', settings: { fail_on: 'ending' } });
    expect(rule.statusCode, rule.body).toBe(201);
    const unknownRule = await h.as('admin').post('/api/compliance/rules/', { name: 'no data', object_type: 'dcim.device', check_kind: 'eol_status', settings: { fail_on: 'unknown' } });
    expect(unknownRule.statusCode).toBe(201);
    const eolViolations = async () =>
      (await h.as('admin').get(`/api/devices/${device.id}/compliance/`)).json().violations.filter((v: { rule: { check_kind: string } }) => v.rule.check_kind === 'eol_status');
    expect(await eolViolations()).toEqual([]);
    // End-of-life rules check nothing while the feature is off: the row's rule count leaves them out until it is on.
    const rulesOnRow = async () => (await h.as('admin').get(`/api/devices/?name=c-dev`)).json().results[0].compliance.rules as number;
    const withoutEol = await rulesOnRow();
    await h.as('admin').put('/api/eol/settings/', { enabled: true });
    await h.as('admin').post('/api/compliance/evaluate/');
    expect(await rulesOnRow()).toBe(withoutEol + 2);
    expect((await eolViolations()).map((v: { rule: { name: string } }) => v.rule.name)).toEqual(['no data']);
    const doc = { result: [{ name: 'oldos', label: 'Old OS', releases: [{ name: '1', eolFrom: '2026-12-01' }] }] };
    const { payload, headers } = multipart(Buffer.from(JSON.stringify(doc)));
    const imp = await h.app.inject({ method: 'POST', url: '/api/eol/import/', payload, headers: { ...headers, authorization: `Token ${h.tokens.admin}` } });
    expect(imp.statusCode, imp.body).toBe(200);
    // Mapping re-evaluates end-of-life rules of the tenant.
    expect((await h.as('admin').put(`/api/eol/platforms/${platformId}/`, { product: 'oldos', cycle: '1' })).statusCode).toBe(200);
    const failing = await eolViolations();
    expect(failing.map((v: { rule: { name: string; fail_on: string } }) => [v.rule.name, v.rule.fail_on])).toEqual([['eol', 'ending']]);
    // A 5-day window puts the date outside: the rule passes at once, re-evaluated when the setting changes.
    await h.as('admin').put('/api/eol/settings/', { warning_days: 5 });
    expect(await eolViolations()).toEqual([]);
    await h.as('admin').put('/api/eol/settings/', { warning_days: 180 });
    expect((await eolViolations()).length).toBe(1);
    // Off again: the violation is hidden at once.
    await h.as('admin').put('/api/eol/settings/', { enabled: false });
    expect(await eolViolations()).toEqual([]);
  });
});
