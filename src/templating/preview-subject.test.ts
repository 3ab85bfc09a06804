// Issue 27: previewing unsaved config-template source against one device's (or VM's) render context, as the
// editor does with its device picker; every bad input is a 400 naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { created, createDevice, inventoryBasics, type Basics } from '../../test/helpers/inventory.ts';

let h: Harness;
let b: Basics;
let device: { id: string };
let vm: { id: string };
let otherTenantDevice: { id: string };

beforeAll(async () => {
  h = await startHarness();
  b = await inventoryBasics(h.as('alice'), ['eth0', 'eth1']);
  device = await createDevice(h.as('alice'), b, 'prev1');
  vm = await created(h.as('alice'), '/api/virtual-machines/', { name: 'prev-vm', role: b.role });
  const bb = await inventoryBasics(h.as('bob'), ['eth0']);
  otherTenantDevice = await createDevice(h.as('bob'), bb, 'bob1');
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const preview = (body: Record<string, unknown>) => h.as('alice').post('/api/export-templates/preview/', body);

describe('preview against a device', () => {
  it('renders the device context: device, interfaces, routing, config_context', async () => {
    const code = '{{ device.name }}:{% for i in interfaces %} {{ i.name }}{% endfor %} bgp={{ routing.bgp|length }} cc={{ config_context|length }}';
    const res = await preview({ object_type: 'dcim.device', template_code: code, device: device.id });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ output: 'prev1: eth0 eth1 bgp=0 cc=0', count: 1, truncated: false });
  });

  it('renders a VM context from virtual_machine', async () => {
    const res = await preview({ object_type: 'virtualization.virtualmachine', template_code: '{{ vm.name }}/{{ device.name }} bgp={{ routing.bgp|length }}', virtual_machine: vm.id });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().output).toBe('prev-vm/prev-vm bgp=0');
  });

  it('answers a template error with 400, its line and message', async () => {
    const res = await preview({ object_type: 'dcim.device', template_code: 'ok\n{{ device.name / 2 }}', device: device.id });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ line: 2 });
    expect(res.json().detail).toMatch(/^line 2: /);
  });

  it('refuses bad subjects naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ object_type: 'dcim.device', template_code: 'x', device: 'nope' }, 'device', /not a valid id/],
      [{ object_type: 'dcim.device', template_code: 'x', device: otherTenantDevice.id }, 'device', /No device with this id/],
      [{ object_type: 'dcim.device', template_code: 'x', device: vm.id }, 'device', /No device with this id/],
      [{ object_type: 'dcim.site', template_code: 'x', device: device.id }, 'device', /Only a template for dcim\.device/],
      [{ object_type: 'dcim.device', template_code: 'x', device: device.id, virtual_machine: vm.id }, 'virtual_machine', /not both/],
      [{ object_type: 'dcim.device', template_code: '{% for %}', device: device.id }, 'template_code', /^line 1: /],
    ];
    for (const [body, field, message] of cases) {
      const res = await preview(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()[field]?.[0], res.body).toMatch(message);
    }
    // Without a subject the list preview is unchanged.
    expect((await preview({ object_type: 'dcim.device', template_code: '{{ count }}' })).json()).toEqual({ output: '1', count: 1, truncated: false });
  });
});
