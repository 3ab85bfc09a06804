// `cairn models describe`: a model's behaviour, assembled from several files, listed with the file of each part.
import { describe, expect, it } from 'vitest';
import '../models.ts';
import { describeModel, formatDescription } from './describe.ts';

describe('models describe', () => {
  it("names the file of each part of a device's behaviour, from its definition to other domains' hooks, filters and computed values", () => {
    const d = describeModel('dcim.device')!;
    const files = (what: string) => d.registrations.filter((r) => r.what === what).map((r) => r.file);
    expect(files('definition')).toEqual(['src/dcim/models.ts']);
    expect(d.registrations).toContainEqual({ what: 'hooks', names: ['afterUpdate'], file: 'src/monitoring/models.ts' });
    expect(d.registrations).toContainEqual({ what: 'computed', names: ['compliance'], file: 'src/compliance/models.ts' });
    expect(d.registrations).toContainEqual({ what: 'computed', names: ['config_template'], file: 'src/templating/bindings.ts' });
    expect(d.registrations).toContainEqual({ what: 'list filters', names: ['eol'], file: 'src/lifecycle/models.ts' });
    expect(files('hooks')).toContain('src/automation/deploy-models.ts');
    expect(d.computed).toEqual(expect.arrayContaining(['primary_ip', 'compliance', 'config_template']));
    expect(d.fields.find((f) => f.key === 'site')).toMatchObject({ kind: 'fk', column: 'site_id', required: true });
    // Its own rule, the status rule (extras) and the template binding's (templating), each saying how bulk loads honour it.
    expect(d.validateRules).toHaveLength(3);
    expect(d.validateRules.every((r) => typeof r.bulkLoads === 'string' && r.bulkLoads.startsWith('not run row by row'))).toBe(true);
    expect(formatDescription(d)).toContain(`Validate rules (3) in bulk loads (demo data, the NetBox import)\n  3 of 3: not run row by row`);
    // Every registration was made from a file under src/ (a stack that names none would read "(unknown)").
    for (const r of d.registrations) expect(r.file).toMatch(/^src\/.+\.ts$/);
    const text = formatDescription(d);
    expect(text).toContain('src/monitoring/models.ts');
    expect(text).toMatch(/^dcim\.device: device \(devices\)/);
  });

  it('names the domain that registered a cable end, and the core file of a core model', () => {
    expect(describeModel('dcim.consoleport')!.registrations).toContainEqual({ what: 'cable end', names: ['parent dcim.device'], file: 'src/dcim/console-models.ts' });
    expect(describeModel('users.token')?.registrations[0]?.file).toMatch(/^src\/core\//);
  });

  it('finds a model by its API path too, and nothing for an unknown name', () => {
    expect(describeModel('/api/devices/')?.name).toBe('dcim.device');
    expect(describeModel('dcim.nothing')).toBeNull();
  });
});
