// The default statuses reach tenants that existed before the inventory migration.
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrations } from '../db/migrations/index.ts';
import { migrateToLatest } from '../db/migrator.ts';
import { openUnmigratedPGlite } from '../../test/helpers/database.ts';

describe('migration 0002', () => {
  it('seeds the default statuses of existing tenants', async () => {
    const database = await openUnmigratedPGlite('cairn-0002-');
    try {
      const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } });
      const first = await migrator.migrateTo('0001_foundation');
      expect(first.error).toBeUndefined();
      await sql`INSERT INTO tenants (id, numid, name, slug) VALUES ('01a1fd00-0000-7000-8000-000000000001', 1, 'Old', 'old')`.execute(database.db);
      await migrateToLatest(database.db);
      const { rows } = await sql<{ slug: string; available_to: string[]; default_for: string[] }>`SELECT slug, available_to, default_for FROM statuses ORDER BY numid`.execute(database.db);
      // 0002 seeded six; 0017 opened the shared ones to prefixes and VLANs and added Container after them; 0019 to
      // ranges; 0037 opened Planned and Decommissioning to cables and sites, added Connected (the cables' default)
      // and made Active the sites' default; 0046 opened Active (their default), Planned and Offline to circuits and
      // added Provisioning, Deprovisioning and Decommissioned.
      expect(rows.map((r) => r.slug)).toEqual(['active', 'planned', 'offline', 'decommissioning', 'reserved', 'deprecated', 'container', 'connected', 'provisioning', 'deprovisioning', 'decommissioned']);
      expect(rows[0]).toMatchObject({
        available_to: ['circuits.circuit', 'dcim.device', 'ipam.ipaddress', 'ipam.iprange', 'ipam.prefix', 'ipam.vlan', 'organization.site'],
        default_for: ['circuits.circuit', 'dcim.device', 'ipam.ipaddress', 'ipam.iprange', 'ipam.prefix', 'ipam.vlan', 'organization.site'],
      });
      expect(rows[1]!.available_to).toEqual(['circuits.circuit', 'dcim.cable', 'dcim.device', 'organization.site']);
      expect(rows[2]!.available_to).toEqual(['circuits.circuit', 'dcim.device']);
      expect(rows[6]!.available_to).toEqual(['ipam.prefix']);
      expect(rows[7]).toMatchObject({ available_to: ['dcim.cable'], default_for: ['dcim.cable'] });
      for (const r of rows.slice(8)) expect(r).toMatchObject({ available_to: ['circuits.circuit'], default_for: [] });
    } finally {
      await database.close();
    }
  });
});
