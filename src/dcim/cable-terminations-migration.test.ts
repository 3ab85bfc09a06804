// Migration 0027 moves the cable ends of the two per-end tables into cable_terminations, keeping each end.
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrations } from '../db/migrations/index.ts';
import { migrateToLatest } from '../db/migrator.ts';
import { openUnmigratedPGlite } from '../../test/helpers/database.ts';

const id = (n: number) => `01a1fd00-0000-7000-8000-${String(n).padStart(12, '0')}`;

describe('migration 0027', () => {
  it('moves existing cable ends into cable_terminations, end by end', async () => {
    const database = await openUnmigratedPGlite('cairn-0027-');
    const db = database.db;
    try {
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      expect((await migrator.migrateTo('0025_interface_lag_parent')).error).toBeUndefined();
      const t = id(1);
      await sql`INSERT INTO tenants (id, numid, name, slug) VALUES (${t}, 1, 'Old', 'old')`.execute(db);
      await sql`INSERT INTO sites (id, numid, tenant_id, name, slug) VALUES (${id(2)}, 1, ${t}, 'S', 's')`.execute(db);
      await sql`INSERT INTO manufacturers (id, numid, tenant_id, name, slug) VALUES (${id(3)}, 1, ${t}, 'M', 'm')`.execute(db);
      await sql`INSERT INTO device_types (id, numid, tenant_id, manufacturer_id, model, slug) VALUES (${id(4)}, 1, ${t}, ${id(3)}, 'T', 't')`.execute(db);
      await sql`INSERT INTO device_roles (id, numid, tenant_id, name, slug) VALUES (${id(5)}, 1, ${t}, 'R', 'r')`.execute(db);
      await sql`INSERT INTO devices (id, numid, tenant_id, name, device_type_id, role_id, site_id) VALUES (${id(6)}, 1, ${t}, 'd', ${id(4)}, ${id(5)}, ${id(2)})`.execute(db);
      for (const n of [1, 2, 3, 4]) {
        await sql`INSERT INTO interfaces (id, numid, tenant_id, device_id, name, type) VALUES (${id(10 + n)}, ${n}, ${t}, ${id(6)}, ${`eth${n}`}, '1000base-t')`.execute(db);
      }
      await sql`INSERT INTO cables (id, numid, tenant_id) VALUES (${id(21)}, 1, ${t}), (${id(22)}, 2, ${t})`.execute(db);
      await sql`INSERT INTO cable_a_terminations (cable_id, interface_id) VALUES (${id(21)}, ${id(11)}), (${id(21)}, ${id(12)}), (${id(22)}, ${id(13)})`.execute(db);
      await sql`INSERT INTO cable_b_terminations (cable_id, interface_id) VALUES (${id(21)}, ${id(14)})`.execute(db);

      await migrateToLatest(db);
      const { rows } = await sql<{ cable_id: string; cable_end: string; termination_type: string; termination_id: string }>`
        SELECT cable_id, cable_end, termination_type, termination_id FROM cable_terminations ORDER BY termination_id`.execute(db);
      expect(rows).toEqual([
        { cable_id: id(21), cable_end: 'A', termination_type: 'dcim.interface', termination_id: id(11) },
        { cable_id: id(21), cable_end: 'A', termination_type: 'dcim.interface', termination_id: id(12) },
        { cable_id: id(22), cable_end: 'A', termination_type: 'dcim.interface', termination_id: id(13) },
        { cable_id: id(21), cable_end: 'B', termination_type: 'dcim.interface', termination_id: id(14) },
      ]);
      const { rows: old } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_tables WHERE tablename IN ('cable_a_terminations', 'cable_b_terminations')`.execute(db);
      expect(old[0]!.n).toBe(0);
    } finally {
      await database.close();
    }
  });
});
