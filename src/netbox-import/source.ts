// The NetBox side of the import: a read-only connection to NetBox's PostgreSQL database, read with plain SQL
// (NetBox's schema is foreign here: no models), what version wrote it, and its content types.
import pg from 'pg';
import { quoteIdent, quoteLiteral } from '../db/quote.ts';

/** Refusals the command prints as one line (not NetBox, wrong version, a row Cairn's rules refuse). */
export class NetBoxImportError extends Error {}

export type NetBoxRow = Record<string, unknown>;

const DATE_OID = 1082;

/**
 * NetBox releases by the last dcim migration they ship (NetBox keeps no version in its database; each release adds
 * dcim migrations, so the highest one applied names the release).
 */
const RELEASES: ReadonlyArray<{ version: string; firstDcimMigration: number }> = [
  { version: '3.7', firstDcimMigration: 182 },
  { version: '4.0', firstDcimMigration: 186 },
  { version: '4.1', firstDcimMigration: 188 },
  { version: '4.2', firstDcimMigration: 192 },
  // 4.3 starts at 0201: outside what the import knows.
  { version: '4.3', firstDcimMigration: 201 },
];
export const SUPPORTED_VERSIONS = ['3.7', '4.0', '4.1', '4.2'] as const;

export function versionOfDcimMigration(n: number): string | null {
  let found: string | null = null;
  for (const r of RELEASES) if (n >= r.firstDcimMigration) found = r.version;
  return found;
}

async function connect(url: string): Promise<pg.Client> {
  // Dates stay text (node-postgres would make a local-midnight Date of them and shift them by the time zone).
  const types = { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === DATE_OID ? (v: string) => v : pg.types.getTypeParser(oid, format as 'text'))) as typeof pg.types.getTypeParser };
  const client = new pg.Client({ connectionString: url, types });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    throw new NetBoxImportError(`cannot connect to ${redact(url)}: ${(err as Error).message}`);
  }
  return client;
}

export class NetBoxSource {
  private columnsByTable = new Map<string, Set<string>>();
  /** NetBox column (`table.column`) → the table its foreign key points at. */
  private fkTargets = new Map<string, string>();
  /** django_content_type id → NetBox table (`dcim_interface`). */
  readonly contentTypes = new Map<number, string>();
  version = '';

  /** The snapshot this connection reads (exported, so a second connection can read the same one). */
  private snapshot: string | null = null;
  /** A second connection on the same snapshot, reading the next table while the import writes this one. */
  private reader: Promise<pg.Client> | null = null;
  private readonly prefetched = new Map<string, Promise<NetBoxRow[]>>();

  private constructor(
    private readonly client: pg.Client,
    private readonly url: string,
  ) {}

  static async open(url: string): Promise<NetBoxSource> {
    const client = await connect(url);
    const source = new NetBoxSource(client, url);
    try {
      // Read-only from the start: the import never writes to NetBox, and one snapshot gives consistent tables.
      await client.query('BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      // Named, so a second connection can read the same snapshot (prefetch).
      source.snapshot = (await client.query<{ id: string }>('SELECT pg_export_snapshot() AS id')).rows[0]!.id;
      await source.describe();
    } catch (err) {
      await source.close();
      throw err;
    }
    return source;
  }

  async close(): Promise<void> {
    const reader = this.reader;
    this.reader = null;
    if (reader) await reader.then((c) => c.end()).catch(() => undefined);
    await this.client.end().catch(() => undefined);
  }

  private async describe(): Promise<void> {
    const { rows: cols } = await this.client.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()`,
    );
    for (const c of cols) {
      let set = this.columnsByTable.get(c.table_name);
      if (!set) this.columnsByTable.set(c.table_name, (set = new Set()));
      set.add(c.column_name);
    }
    if (!this.hasTable('django_migrations') || !this.hasTable('dcim_device') || !this.hasTable('django_content_type')) {
      throw new NetBoxImportError('not a NetBox database (no django_migrations, dcim_device or django_content_type table)');
    }
    const { rows: mig } = await this.client.query<{ n: number | null }>(
      `SELECT max(substring(name from '^([0-9]{4})')::int) AS n FROM django_migrations WHERE app = 'dcim'`,
    );
    const version = versionOfDcimMigration(mig[0]?.n ?? 0);
    if (!version || !(SUPPORTED_VERSIONS as readonly string[]).includes(version)) {
      throw new NetBoxImportError(`NetBox ${version ?? 'older than 3.7'} (dcim migration ${String(mig[0]?.n ?? 'none').padStart(4, '0')}) is not supported: the import reads NetBox 3.7 to 4.2`);
    }
    this.version = version;
    const { rows: fks } = await this.client.query<{ tbl: string; col: string; target: string }>(
      `SELECT c.conrelid::regclass::text AS tbl, a.attname AS col, c.confrelid::regclass::text AS target
       FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
       WHERE c.contype = 'f' AND array_length(c.conkey, 1) = 1 AND c.connamespace = current_schema()::regnamespace`,
    );
    for (const f of fks) this.fkTargets.set(`${f.tbl.replace(/^"|"$/g, '')}.${f.col}`, f.target.replace(/^"|"$/g, ''));
    const { rows: cts } = await this.client.query<{ id: number; app_label: string; model: string }>('SELECT id, app_label, model FROM django_content_type');
    for (const ct of cts) this.contentTypes.set(Number(ct.id), `${ct.app_label}_${ct.model}`);
  }

  hasTable(table: string): boolean {
    return this.columnsByTable.has(table);
  }

  columns(table: string): Set<string> {
    return this.columnsByTable.get(table) ?? new Set();
  }

  /** The table a foreign-key column points at (from NetBox's own constraints), or null. */
  fkTarget(table: string, column: string): string | null {
    return this.fkTargets.get(`${table}.${column}`) ?? null;
  }

  /** The column of `table` that points at `target` (NetBox's object tenant column points at tenancy_tenant), or null. */
  columnReferencing(table: string, target: string): string | null {
    for (const column of this.columns(table)) if (this.fkTarget(table, column) === target) return column;
    return null;
  }

  /** Content type id → `app_label.model` as NetBox names the model. */
  objectTypeName(contentTypeId: unknown): string | null {
    const t = this.contentTypes.get(Number(contentTypeId));
    return t ? t.replace('_', '.') : null;
  }

  async query<T extends NetBoxRow = NetBoxRow>(text: string, params: unknown[] = []): Promise<T[]> {
    const { rows } = await this.client.query<T>(text, params);
    return rows;
  }

  /** Every row of a table, in id order (a table without `id`, a join table, in its own order). */
  async rows(table: string, extraSelect = ''): Promise<NetBoxRow[]> {
    const key = `${table} ${extraSelect}`;
    const ahead = this.prefetched.get(key);
    if (ahead) {
      this.prefetched.delete(key);
      // A second connection the server refused (its connection limit) costs the read-ahead, not the import: the
      // rows are read here instead, where a real error in the query fails as it would have.
      const rows = await ahead.catch(() => null);
      if (rows) return rows;
    }
    return this.query(this.rowsSql(table, extraSelect));
  }

  /**
   * Starts reading what rows(table, extraSelect) will be asked for, on a second connection that sees the same
   * snapshot, so reading and decoding one table overlaps writing the one before it.
   */
  prefetch(table: string, extraSelect = ''): void {
    const key = `${table} ${extraSelect}`;
    if (!this.snapshot || this.prefetched.has(key)) return;
    const snapshot = this.snapshot;
    this.reader ??= connect(this.url).then(async (c) => {
      await c.query('BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await c.query(`SET TRANSACTION SNAPSHOT ${quoteLiteral(snapshot)}`);
      return c;
    });
    const rows = this.reader.then(async (c) => (await c.query<NetBoxRow>(this.rowsSql(table, extraSelect))).rows);
    // Its error surfaces where rows() awaits it; one never asked for must not end the process.
    rows.catch(() => undefined);
    this.prefetched.set(key, rows);
  }

  private rowsSql(table: string, extraSelect: string): string {
    const order = this.columns(table).has('id') ? ' ORDER BY t.id' : '';
    return `SELECT t.*${extraSelect ? `, ${extraSelect}` : ''} FROM ${quoteIdent(table)} t${order}`;
  }

  async count(table: string): Promise<number> {
    const rows = await this.query<{ n: string }>(`SELECT count(*) AS n FROM ${quoteIdent(table)}`);
    return Number(rows[0]!.n);
  }

  /** Tables holding rows, with their counts (for the report's "no home yet" list). */
  async tablesWithRows(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const table of [...this.columnsByTable.keys()].sort()) {
      const n = await this.count(table);
      if (n > 0) out.set(table, n);
    }
    return out;
  }
}


/** The URL without its password, for messages. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}
