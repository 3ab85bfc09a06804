// NetBox's own demo databases (../shared/data/netbox/) on the test PostgreSQL server, for the tests that import
// them (src/netbox-import/netbox-import.test.ts, test/netbox-clients.test.ts). Each dump is loaded with psql once
// into a template database (about 20 s on a calm machine), under a server-wide advisory lock so two test files
// that want it at once load it once; each test then copies the template (CREATE DATABASE … TEMPLATE, well under a
// second) and may change its copy freely. A killed load leaves only a `_loading_` database, never a template.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { withServer } from '../helpers/pg-test-databases.ts';

export type DemoVersion = '3.7' | '4.1';

export function demoDump(version: DemoVersion): string {
  return `/work/shared/data/netbox/netbox-demo-v${version}.sql.gz`;
}

export function demoAvailable(version: DemoVersion): boolean {
  return existsSync(demoDump(version));
}

function urlOf(serverUrl: string, name: string): string {
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

/** The template database of a demo dump, loaded if the server has none yet. */
export async function demoTemplate(serverUrl: string, version: DemoVersion): Promise<string> {
  const template = `cairn_netbox_demo_${version.replace('.', '')}_template`;
  await withServer(serverUrl, async (c) => {
    // The dump names NetBox's role as owner of its objects.
    await c.query('CREATE ROLE netbox').catch(() => undefined);
    await c.query('SELECT pg_advisory_lock(hashtext($1))', [template]);
    try {
      const { rows } = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
      if (rows.length) return;
      const loading = `${template}_loading_${process.pid}`;
      await c.query(`DROP DATABASE IF EXISTS ${loading}`);
      await c.query(`CREATE DATABASE ${loading}`);
      execFileSync('sh', ['-c', `zcat "${demoDump(version)}" | psql -q -v ON_ERROR_STOP=1 "${urlOf(serverUrl, loading)}" >/dev/null`]);
      await c.query(`ALTER DATABASE ${loading} RENAME TO ${template}`);
    } finally {
      await c.query('SELECT pg_advisory_unlock(hashtext($1))', [template]);
    }
  });
  return template;
}

export interface DemoCopy {
  name: string;
  url: string;
  /** A connection to the copy, for the test to read NetBox's tables and change them before importing. */
  client: pg.Client;
  drop(): Promise<void>;
}

/** A fresh copy of a demo database of its own, connected. */
export async function demoCopy(serverUrl: string, version: DemoVersion, tag: string): Promise<DemoCopy> {
  const template = await demoTemplate(serverUrl, version);
  const name = `cairn_netbox_${tag}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await withServer(serverUrl, (c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
  const url = urlOf(serverUrl, name);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    name,
    url,
    client,
    drop: async () => {
      await client.end().catch(() => undefined);
      await withServer(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
