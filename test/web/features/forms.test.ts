// The generic forms in a real browser against a real `cairn serve` (issue 51, points 3, 9 and 10):
// - every add form shows each field's default as the registry declares it (generated over every model one may add:
//   booleans, choices, numbers, texts, lists, the status marked default) and its help texts in plain words; the
//   Add interface form saves what it shows;
// - the change log names a device's config template instead of its id, an export template's object type reads
//   "Devices";
// - the device form marks required fields, reports every problem of a submit at once with the keyboard on the
//   first, and offers the rack's free units as a list.
// Each step saves a screenshot under test/web/screenshots/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../../src/models.ts';
import { allModels, isRequired, type FieldDef } from '../../../src/core/registry.ts';
import { helpProblems } from '../../helpers/plain-words.ts';
import { chromiumAvailable, shot, type Browser, type WebServer } from '../helpers.ts';
import { openSession, type Page, type Row, type Session } from './fixtures.ts';

const ready = chromiumAvailable();
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

interface ModelInfo {
  model: string;
  label: string;
  path: string;
  can: { add: boolean };
}

interface Shown {
  key: string;
  control: 'checkbox' | 'select' | 'text' | 'none';
  value: string | boolean;
  hint: string;
  required: boolean;
}

/** What an add form must show for a field left alone: what a create stores without it, in the form's notation. */
function expectedShown(field: FieldDef, defaultStatus: string | undefined): string | boolean | undefined {
  const d = field.default;
  switch (field.kind) {
    case 'boolean':
      return field.nullable ? (d === undefined ? 'false' : d === null ? '' : String(d)) : d === undefined ? false : d === true;
    case 'fk':
      return field.target === 'extras.status' ? (defaultStatus ?? '') : undefined;
    case 'choice':
    case 'integer':
    case 'decimal':
    case 'string':
    case 'text':
    case 'slug':
    case 'url':
    case 'color':
    case 'inet':
    case 'cidr':
    case 'uuid':
    case 'date':
    case 'datetime':
      return d === undefined || d === null ? '' : String(d);
    case 'json':
      return d === undefined || d === null ? '' : JSON.stringify(d, null, 2);
    case 'string_list':
    case 'integer_list':
      return Array.isArray(d) ? d.join(', ') : '';
    default:
      // Pickers (objects, tags, cable ends) and custom fields: nothing has a default there.
      return undefined;
  }
}

describe.skipIf(!ready)('forms in chromium', () => {
  let server: WebServer;
  let browser: Browser;
  let session: Session;
  let site: Row;
  let role: Row;
  let deviceType: Row;
  let rack: Row;
  let leaf: Row;

  beforeAll(async () => {
    // No demo data: the first run's tenant with its default statuses, and the few rows the tests need.
    session = await openSession();
    ({ server, browser } = session);
    site = (await server.api<Row>('POST', '/api/sites/', { name: 'Forms DC1', slug: 'forms-dc1' })).body;
    role = (await server.api<Row>('POST', '/api/device-roles/', { name: 'Forms leaf', slug: 'forms-leaf' })).body;
    expect(site.id && role.id).toBeTruthy();
    // A custom field with a default: a new interface gets "silver", so the add form shows it.
    expect((await server.api('POST', '/api/custom-fields/', { name: 'tier', label: 'Tier', type: 'select', choices: ['gold', 'silver'], default: 'silver', object_types: ['dcim.interface'] })).status).toBe(201);
    const manufacturer = (await server.api<Row>('POST', '/api/manufacturers/', { name: 'Forms Inc', slug: 'forms-inc' })).body;
    deviceType = (await server.api<Row>('POST', '/api/device-types/', { manufacturer: manufacturer.id, model: 'Forms 1U', slug: 'forms-1u', u_height: 1 })).body;
    rack = (await server.api<Row>('POST', '/api/racks/', { site: site.id, name: 'Forms rack', u_height: 12 })).body;
    const placed = await server.api<Row>('POST', '/api/devices/', { name: 'forms-leaf1', device_type: deviceType.id, role: role.id, site: site.id, rack: rack.id, position: 10, face: 'front' });
    expect(placed.status).toBe(201);
    leaf = placed.body;
  }, 300_000);

  afterAll(async () => {
    await session?.close();
  });

  it('shows on every add form each field\'s default as the registry declares it, with help texts in plain words', async () => {
    const { page } = browser;
    const models = (await server.api<{ models: ModelInfo[] }>('GET', '/api/models/')).body.models.filter((m) => m.can.add);
    const statuses = (await server.api<Page<Row & { default_for: string[] }>>('GET', '/api/statuses/?limit=1000')).body.results;
    const customFields = (await server.api<Page<Row & { type: string; default: unknown; object_types: string[] }>>('GET', '/api/custom-fields/?limit=1000')).body.results;
    await page.goto(`${server.url}/objects/dcim.interface/new`);
    await page.locator('form[aria-label="Create interface"]').waitFor();
    const problems: string[] = [];
    const plainWordProblems: string[] = [];
    let formsChecked = 0;
    let fieldsChecked = 0;
    const ownEditors: string[] = [];
    // The whole walk runs inside the page (in-app navigation: the router follows history), so each form costs its
    // own requests and no page load or round trip of the test driver.
    const walked = await page.evaluate(
      async (list) => {
        const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
        const out: Array<{ model: string; own: boolean; shown: Shown[] }> = [];
        for (const m of list) {
          const target = `/objects/${m.model}/new`;
          window.history.pushState({}, '', target);
          window.dispatchEvent(new PopStateEvent('popstate', { state: window.history.state }));
          const start = performance.now();
          let form: HTMLFormElement | null = null;
          let own = false;
          while (performance.now() - start < 15_000) {
            if (window.location.pathname !== target) {
              own = true;
              break;
            }
            form = document.querySelector<HTMLFormElement>(`form[aria-label="Create ${m.label}"]`);
            // The status list arrives with its own request: wait until the select offers it.
            const status = form?.querySelector<HTMLSelectElement>('[data-field-key="status"] select');
            if (form && (!status || status.options[0]?.text !== 'Loading…')) break;
            form = null;
            await sleep(10);
          }
          if (own || !form) {
            out.push({ model: m.model, own, shown: [] });
            continue;
          }
          const shown = Array.from(form.querySelectorAll<HTMLElement>('[data-field-key]')).map((el) => {
            const key = el.dataset.fieldKey!;
            const control = el.querySelector<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>('input, select, textarea');
            const hint = Array.from(el.querySelectorAll('p.text-xs')).map((p) => p.textContent ?? '').join(' ');
            const required = el.dataset.required === 'true';
            if (!control) return { key, control: 'none' as const, value: '', hint, required };
            if (control instanceof HTMLInputElement && control.type === 'checkbox') return { key, control: 'checkbox' as const, value: control.checked, hint, required };
            return { key, control: control instanceof HTMLSelectElement ? ('select' as const) : ('text' as const), value: control.value, hint, required };
          });
          out.push({ model: m.model, own, shown });
        }
        return out;
      },
      models.map((m) => ({ model: m.model, label: m.label })),
    );
    for (const { model, own, shown } of walked) {
      if (own) {
        // A model written in a page of its own (the export template's source editor), not the generic form.
        ownEditors.push(model);
        continue;
      }
      if (!shown.length) {
        problems.push(`${model}: no add form`);
        continue;
      }
      const def = allModels().find((m) => m.name === model)!;
      const defaultStatus = statuses.find((s) => s.default_for.includes(model))?.id;
      for (const s of shown) {
        const field = def.fields[s.key];
        for (const w of helpProblems(s.hint, field?.kind ?? 'custom')) plainWordProblems.push(`${model}.${s.key}: "${w}" in "${s.hint}"`);
        const cf = customFields.find((c) => `custom_fields.${c.name}` === s.key && c.object_types.includes(model));
        if (cf && ['text', 'select', 'integer', 'decimal', 'boolean', 'date', 'url'].includes(cf.type)) {
          // A custom field's default, as the tenant defined it.
          const expected = cf.default === null || cf.default === undefined ? '' : String(cf.default);
          fieldsChecked++;
          if (s.value !== expected) problems.push(`${model}.${s.key}: shows ${JSON.stringify(s.value)}, a new one gets ${JSON.stringify(expected)}`);
        }
        if (!field) continue;
        if (s.required !== isRequired(field)) problems.push(`${model}.${s.key}: ${s.required ? 'marked' : 'not marked'} required`);
        const expected = expectedShown(field, defaultStatus);
        if (expected === undefined) continue;
        fieldsChecked++;
        if (s.value !== expected) problems.push(`${model}.${s.key}: shows ${JSON.stringify(s.value)}, a new one gets ${JSON.stringify(expected)}`);
      }
      formsChecked++;
    }
    await page.evaluate(() => {
      window.history.pushState({}, '', '/objects/dcim.interface/new');
      window.dispatchEvent(new PopStateEvent('popstate', { state: window.history.state }));
    });
    await page.locator('form[aria-label="Create interface"] [data-field-key="enabled"]').waitFor();
    await shot(page, 'f01-add-interface-defaults');
    expect(problems).toEqual([]);
    expect(plainWordProblems).toEqual([]);
    // Every model one may add but those with an editor of their own; hundreds of fields.
    expect(ownEditors).toEqual(['extras.exporttemplate']);
    expect(formsChecked).toBe(models.length - ownEditors.length);
    expect(formsChecked).toBeGreaterThan(80);
    expect(fieldsChecked).toBeGreaterThan(400);
  }, 120_000);

  it('saves what the Add interface form shows: Enabled ticked, and enabled once saved', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/objects/dcim.interface/new`);
    const enabled = page.getByLabel('Enabled', { exact: true });
    await enabled.waitFor();
    expect(await enabled.isChecked()).toBe(true);
    expect(await page.getByLabel('Management only', { exact: true }).isChecked()).toBe(false);
    expect(await page.getByLabel('Tier', { exact: true }).inputValue()).toBe('silver');
    const device = page.getByRole('combobox', { name: 'Device', exact: true });
    await device.fill('forms-leaf1');
    await page.getByRole('option', { name: 'forms-leaf1' }).first().click();
    await page.getByLabel('Name', { exact: true }).fill('Ethernet9');
    await page.getByLabel('Type', { exact: true }).selectOption('1000base-t');
    await shot(page, 'f02-add-interface-filled');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/objects\/dcim\.interface\/[0-9a-f-]{36}$/);
    const saved = (await server.api<Page<Row>>('GET', `/api/interfaces/?device_id=${leaf.id}&name=Ethernet9`)).body.results[0]!;
    expect(saved).toMatchObject({ enabled: true, mgmt_only: false, custom_fields: { tier: 'silver' } });
  });

  it('names the config template in the change log and reads an export template\'s object type as "Devices"', async () => {
    const { page } = browser;
    const template = (await server.api<Row>('POST', '/api/export-templates/', { name: 'forms-config', object_type: 'dcim.device', template_code: 'hostname {{ device.name }}\n' })).body;
    expect((await server.api('PATCH', `/api/devices/${leaf.id}/`, { config_template_id: template.id })).status).toBe(200);
    await page.goto(`${server.url}/objects/dcim.device/${leaf.id}?tab=changelog`);
    const row = page.locator('[data-change="update"] tr[data-field="config_template_id"]').first();
    await row.waitFor();
    expect(await row.locator('th').innerText()).toBe('Config template');
    await row.getByText('forms-config').waitFor();
    const tab = await page.locator('ol').filter({ has: page.locator('[data-change]') }).innerText();
    expect(tab).not.toMatch(UUID);
    expect(tab).not.toMatch(/Config template id/i);
    await shot(page, 'f03-change-log-names-template');

    await page.goto(`${server.url}/objects/extras.exporttemplate/${template.id}?tab=template`);
    const type = page.locator('dd[data-object-type="dcim.device"]');
    await type.waitFor();
    expect(await type.innerText()).toBe('Devices');
    await shot(page, 'f04-export-template-object-type');
    await page.goto(`${server.url}/export-templates/${template.id}/editor`);
    const select = page.getByLabel('Object type');
    await select.waitFor();
    expect(await select.locator('option:checked').innerText()).toBe('Devices');
    const texts = await select.locator('option').allInnerTexts();
    expect(texts.filter((t) => /\w\.\w/.test(t))).toEqual([]);
    await shot(page, 'f04b-export-template-editor-object-type');
  });

  it('marks required fields, reports every problem of a submit at once on the first field, and offers the free units of the rack', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/objects/dcim.device/new`);
    const form = page.locator('form[aria-label="Create device"]');
    await form.waitFor();
    // Marked before any submit.
    const required = await form.locator('[data-required="true"]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.fieldKey));
    expect(required).toEqual(['name', 'device_type', 'role', 'site']);
    // An empty submit: all four at once, the keyboard on the first.
    await page.getByRole('button', { name: 'Create' }).click();
    const alert = form.locator('[data-form-errors]');
    await alert.waitFor();
    expect(await alert.getAttribute('data-form-errors')).toBe('4');
    expect(await page.evaluate(() => (document.activeElement?.closest('[data-field-key]') as HTMLElement | null)?.dataset.fieldKey)).toBe('name');
    await shot(page, 'f05-device-form-required-at-once');

    await page.getByLabel('Name', { exact: true }).fill('forms-leaf1');
    for (const [label, text] of [
      ['Device type', 'Forms 1U'],
      ['Role', String(role.name)],
      ['Site', String(site.name)],
      ['Rack', 'Forms rack'],
    ] as const) {
      const picker = page.getByRole('combobox', { name: label, exact: true });
      await picker.fill(text);
      await page.getByRole('option', { name: text }).first().click();
    }
    await page.getByLabel('Rack face').selectOption('front');
    // Position is a list of the rack's free units: U10 is forms-leaf1's.
    const position = page.getByLabel('Position (U)');
    expect(await position.evaluate((e) => e.tagName)).toBe('SELECT');
    await position.locator('option[value="11"]').waitFor({ state: 'attached' });
    const units = await position.locator('option').evaluateAll((els) => els.map((e) => (e as HTMLOptionElement).value).filter(Boolean));
    expect(units).toEqual(['12', '11', '9', '8', '7', '6', '5', '4', '3', '2', '1']);
    await position.selectOption('12');
    // Meanwhile someone else takes U12.
    expect((await server.api('POST', '/api/devices/', { name: 'forms-other', device_type: deviceType.id, role: role.id, site: site.id, rack: rack.id, position: 12, face: 'front' })).status).toBe(201);
    await page.getByRole('button', { name: 'Create' }).click();
    await form.locator('[data-form-errors="2"]').waitFor();
    const listed = await alert.locator('li').allInnerTexts();
    expect(listed).toEqual(['Name: A device with this name already exists.', 'Position (U): U12 front is taken by forms-other.']);
    expect(await form.locator('[aria-invalid="true"]').count()).toBe(2);
    expect(await page.evaluate(() => (document.activeElement?.closest('[data-field-key]') as HTMLElement | null)?.dataset.fieldKey)).toBe('name');
    await shot(page, 'f06-device-form-all-errors-at-once');
  });
});
