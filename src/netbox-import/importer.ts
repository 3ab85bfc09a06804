// `cairn import netbox`: a NetBox database into one Cairn tenant, in one transaction, through the core's write
// path (the bulk load for new objects, updateRows for changed ones: change-log entries by the system user, the
// search index by the tables' triggers). An object keeps NetBox's id as its number (numid), which is also how a
// re-run finds what it imported: it updates what changed, creates what is new, and deletes nothing; with nothing
// changed it writes nothing. Webhooks do not fire for imported rows (their outbox entries are dropped in the
// same transaction). A dry run does all of it and rolls back.
//
// The bulk load skips per-row validation hooks, so the import checks what they would refuse itself: required
// values, text lengths (from the columns), choices against Cairn's vocabularies, whole numbers, references to rows
// that were imported, custom-field types; unique names and slugs are the tables' own constraints, reported with
// the NetBox row that broke them; duplicate addresses and prefixes in a VRF that enforces uniqueness (and the
// global table, as Cairn enforces it) are checked once the addresses are written.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/database.ts';
import type { DB } from '../db/types.ts';
import { systemContext, type RequestContext } from '../core/context.ts';
import { getModel, requireModel, type FieldDef, type ModelDef } from '../core/registry.ts';
import { vocabularyOptions } from '../core/vocabularies.ts';
import { BulkLoad, type LoadColumn } from '../core/crud/bulk-load.ts';
import { RowRefused } from '../core/crud/row-rules.ts';
import { insertRows } from '../core/crud/insert-rows.ts';
import { updateRows } from '../core/crud/update-rows.ts';
import { uuidv7 } from '../core/ids.ts';
import { inTenant, TENANT_COLUMN } from '../core/access.ts';
import { raiseNumidCounter } from '../core/numids.ts';
import { refreshTenantHierarchy } from '../ipam/hierarchy.ts';
import { refreshTenantUtilization } from '../ipam/utilization.ts';
import { globalUniqueEnforced } from '../ipam/uniqueness.ts';
import { vlanAvailableOn } from '../ipam/vlan-scope.ts';
import { placedOutside, sharedFace, unitsShared } from '../dcim/rack-rules.ts';
import { NetBoxImportError, NetBoxSource, type NetBoxRow } from './source.ts';
import { quoteIdent } from '../db/quote.ts';
import { cableEndModels, endsOf, RENAMED_MODELS, TABLE_MAP, type MapContext, type TableMapping } from './table-map.ts';
import { bindType, cairnColumns, defaultValue, encodeForArray, type CairnColumn } from './cairn-columns.ts';
import { importAccounts, type AccountsReport } from './accounts.ts';
import { checkTemplates, type TemplateProblem } from './templates.ts';

export interface ImportOptions {
  url: string;
  tenantSlug?: string;
  dryRun?: boolean;
  /** One call per NetBox table done (and per step of the accounts and checks). */
  onProgress?: (event: ProgressEvent) => void;
}

export interface ProgressEvent {
  done: number;
  total: number;
  line: string;
}

export interface TableReport {
  table: string;
  model: string;
  read: number;
  created: number;
  updated: number;
  unchanged: number;
  skipped: Record<string, number>;
  /** NetBox columns holding values that have no Cairn field yet (count of rows with a value). */
  columnsWithoutHome: Record<string, number>;
  /** Values adapted to Cairn's rules, with how many rows. */
  adapted: Record<string, number>;
}

export interface ImportReport {
  netboxVersion: string;
  tenant: string;
  dryRun: boolean;
  ms: number;
  tables: TableReport[];
  /** NetBox tables with rows that no Cairn model takes yet. */
  tablesWithoutHome: Array<{ table: string; rows: number }>;
  accounts: AccountsReport;
  templates: TemplateProblem[];
  changeLogEntries: number;
}

/** Rows the bulk load writes in one statement (its chunk), within which rows may point at each other. */
const SELF_REFERENCES_IN_ONE_STATEMENT = 20_000;

/** NetBox tables read ahead of the one being written (on a second connection, in order). */
const READ_AHEAD = 6;

/** Thrown to roll a dry run back once everything is checked. */
class DryRunDone extends Error {}

/** NetBox's bookkeeping columns, never a user's data. */
const BOOKKEEPING = new Set(['id', 'created', 'last_updated', 'custom_field_data', '_name', 'lft', 'rght', 'tree_id', 'level', '_path_id', 'cable_id', 'cable_end', '_abs_length', '_abs_weight', '_abs_max_weight', '_children', '_depth', 'size', '_total_vlan_ids', 'data_synced', 'auto_sync_enabled', 'data_path']);

/** Tables NetBox keeps for itself (sessions, migrations, caches, paths Cairn rebuilds), not worth a "no home" line. */
const INTERNAL_TABLES = /^(django_|auth_permission$|extras_cachedvalue$|dcim_cablepath$|users_userconfig$|core_objecttype$|extras_objectchange$|core_objectchange$|extras_taggeditem$|extras_customfield_(object|content)_types$|users_user_groups$|auth_user_groups$|dcim_cabletermination$|core_job$|extras_branch|social_auth_|taggit_)/;

/** Join tables the import reads as part of a model (many-to-many fields), so they are not "without home". */
const PRELOAD_ALIASES: Record<string, string[]> = {
  customfield_object_types: ['extras_customfield_object_types', 'extras_customfield_content_types'],
  exporttemplate_object_types: ['extras_exporttemplate_object_types', 'extras_exporttemplate_content_types'],
};

interface PlannedField {
  key: string;
  def: FieldDef;
  col: CairnColumn;
  /** A reference's NetBox target table (for deferral and unresolved-reference messages). */
  refTable: string | null;
  read: (row: NetBoxRow) => unknown;
  /** A reference to a table written later: set in the second pass. */
  deferred: boolean;
  /**
   * A deferred reference whose foreign key the database checks at commit (a device's primary addresses): a new row
   * is written with the target's id at once, reserved before the target is written, so it needs no second pass.
   */
  atCommit: boolean;
}

interface EntryState {
  entry: TableMapping;
  table: string;
  model: ModelDef;
  rows: NetBoxRow[];
  kept: NetBoxRow[];
  fields: PlannedField[];
  report: TableReport;
  /** Indexes into `kept` of the rows that were written in an earlier run (updated, not created). */
  existing: Set<number>;
}

export async function importNetBox(database: Database, options: ImportOptions): Promise<ImportReport> {
  const started = Date.now();
  const source = await NetBoxSource.open(options.url);
  try {
    const tenantSlug = options.tenantSlug ?? 'default';
    const db = database.db;
    const tenantRow = await db.selectFrom('tenants').select(['id']).where('slug', '=', tenantSlug).executeTakeFirst();
    let report: ImportReport | null = null;
    try {
      await db.transaction().execute(async (tx) => {
        // A missing tenant is made in the import's transaction (so a dry run or a refusal leaves none behind).
        const tenantId = tenantRow?.id ?? (await createTenantIn(tx, tenantSlug === 'default' ? 'Default' : tenantSlug, tenantSlug));
        const run = new ImportRun(tx, source, tenantId, options);
        report = await run.execute();
        report.tenant = tenantSlug;
        if (options.dryRun) throw new DryRunDone();
      });
    } catch (err) {
      if (!(err instanceof DryRunDone)) throw err;
    }
    const done = report as ImportReport | null;
    if (!done) throw new Error('the import produced no report');
    done.ms = Date.now() - started;
    return done;
  } finally {
    await source.close();
  }
}

class ImportRun {
  private readonly ctx: RequestContext;
  private readonly requestId = `netbox-import:${uuidv7()}`;
  /** NetBox table → NetBox id → Cairn id. */
  private readonly ids = new Map<string, Map<number, string>>();
  /** NetBox table → NetBox id → the Cairn id its object will have, given out before the table is written. */
  private readonly reserved = new Map<string, Map<number, string>>();
  /** Cairn table → its columns whose foreign keys the database checks at commit in this import. */
  private readonly checkedAtCommit = new Map<string, Set<string>>();
  /** Each planned field's check (checkOf), made on its first value. */
  private readonly checks = new Map<PlannedField, (row: NetBoxRow) => unknown>();
  /** NetBox table → its entry's index (what is written before what). */
  private readonly order = new Map<string, number>();
  /** NetBox table → Cairn model name. */
  private readonly modelOfTable = new Map<string, string>();
  private readonly preloaded = new Map<string, NetBoxRow[]>();
  private readonly preloadedById = new Map<string, Map<number, NetBoxRow>>();
  private readonly statusIds = new Map<string, string>();
  private taggedItems: NetBoxRow[] = [];
  private tagIds = new Map<number, string>();
  private customFieldNames = new Set<string>();
  private userIds = new Map<number, string>();
  private readonly states: EntryState[] = [];
  private readonly cx: MapContext;
  private step = 0;
  private total = 0;
  private currentReport: TableReport | null = null;

  constructor(
    private readonly tx: Kysely<DB>,
    private readonly source: NetBoxSource,
    private readonly tenantId: string,
    private readonly options: ImportOptions,
  ) {
    // Imported rows are logged as the system's, and no webhook hears of them.
    this.ctx = { ...systemContext(tenantId, this.requestId), notify: false };
    const self = this;
    this.cx = {
      version: source.version,
      ref: (table, id) => self.ref(table, id),
      object: (ct, id) => {
        const table = source.contentTypes.get(Number(ct));
        if (!table) return null;
        const model = self.modelOfTable.get(table);
        const cairnId = self.ref(table, id);
        return model && cairnId ? { model, id: cairnId } : null;
      },
      modelOfContentType: (ct) => {
        const table = source.contentTypes.get(Number(ct));
        if (!table) return null;
        const mapped = self.modelOfTable.get(table);
        if (mapped) return mapped;
        const name = source.objectTypeName(ct);
        return name ? (RENAMED_MODELS[name] ?? (getModel(name) ? name : null)) : null;
      },
      netboxTypeName: (ct) => source.objectTypeName(ct) ?? `content type ${String(ct)}`,
      lookup: (table, id) => self.preloadedById.get(table)?.get(Number(id)) ?? null,
      rowsOf: (table) => self.preloaded.get(table) ?? [],
      user: (id) => (id === null || id === undefined ? null : (self.userIds.get(Number(id)) ?? null)),
      note: (text) => {
        const r = self.currentReport;
        if (r) r.adapted[text] = (r.adapted[text] ?? 0) + 1;
      },
    };
  }

  private progress(line: string): void {
    this.step++;
    this.options.onProgress?.({ done: this.step, total: this.total, line });
  }

  private ref(table: string, id: unknown): string | null {
    if (id === null || id === undefined || id === '') return null;
    return this.ids.get(table)?.get(Number(id)) ?? null;
  }

  async execute(): Promise<ImportReport> {
    const entries = TABLE_MAP.map((entry) => ({ entry, table: this.tableOf(entry.table), model: getModel(entry.model) }));
    entries.forEach((e, i) => {
      if (e.table && e.model) {
        if (!this.order.has(e.table)) this.order.set(e.table, i);
        this.modelOfTable.set(e.table, e.model.name);
      }
    });
    this.total = entries.length + 3;
    await this.deferDeferrableKeys();
    await this.refuseForeignObjects(entries.flatMap((e) => (e.table && e.model ? [e.model] : [])));
    this.taggedItems = this.source.hasTable('extras_taggeditem') ? await this.source.query('SELECT content_type_id, object_id, tag_id FROM extras_taggeditem ORDER BY id') : [];

    const accounts = await importAccounts(this.tx, this.source, this.ctx);
    this.userIds = accounts.userIds;
    this.progress(`users and groups: ${accounts.report.users.created} users created, ${accounts.report.users.matched} matched; ${accounts.report.tokens.created} tokens`);

    const tables: TableReport[] = [];
    const work = entries.flatMap(({ entry, table, model }) => (table && model ? [{ entry, table, model }] : []));
    for (const [i, { entry, table, model }] of work.entries()) {
      // The next tables are read (and decoded) while this one is written: far enough ahead that the big one
      // (interfaces) is read while the devices before it are written, not only during the small tables between.
      for (const next of work.slice(i + 1, i + 1 + READ_AHEAD)) this.source.prefetch(next.table, this.selectOf(next.entry, next.table));
      const state = await this.importTable(entry, table, model);
      tables.push(state.report);
      const r = state.report;
      const skipped = Object.values(r.skipped).reduce((a, b) => a + b, 0);
      this.progress(`${table} → ${model.name}: ${r.read} read, ${r.created} created, ${r.updated} updated${skipped ? `, ${skipped} skipped` : ''}`);
    }
    await this.writeDeferred();
    await this.refuseDuplicateAddresses();
    await this.refuseMisplacedDevices();
    await this.refuseForeignPrimaryAddresses();
    await this.refuseInterfaceRelations();
    await this.finish();
    this.progress('references between tables, numbers, prefix hierarchy');

    const templates = await checkTemplates(this.tx, this.tenantId, this.ids.get('extras_exporttemplate'), this.ids.get('extras_configtemplate'));
    const tablesWithoutHome: Array<{ table: string; rows: number }> = [];
    const mappedTables = new Set([...this.order.keys()]);
    const readAsPart = new Set([...Object.values(PRELOAD_ALIASES).flat(), ...TABLE_MAP.flatMap((e) => Object.values(e.m2m ?? {}).flatMap((j) => (Array.isArray(j.table) ? j.table : [j.table]))), ...TABLE_MAP.flatMap((e) => e.preload ?? []), 'extras_eventrule_object_types', 'users_user', 'auth_user', 'users_group', 'auth_group', 'users_token', 'users_objectpermission', 'users_objectpermission_groups', 'users_objectpermission_users', 'users_objectpermission_object_types', 'users_group_object_permissions', 'users_user_object_permissions']);
    for (const [table, rows] of await this.source.tablesWithRows()) {
      if (mappedTables.has(table) || readAsPart.has(table) || INTERNAL_TABLES.test(table)) continue;
      if (table === 'dcim_macaddress') {
        // NetBox 4.2's MAC address objects: an interface's primary one is its mac_address here (table-map.ts); the
        // others (a second MAC on an interface, or one assigned to nothing) have no home and are listed.
        const lost = await this.unusedMacAddresses();
        if (lost > 0) tablesWithoutHome.push({ table, rows: lost });
        continue;
      }
      tablesWithoutHome.push({ table, rows });
    }
    const { rows: changes } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM object_changes WHERE request_id = ${this.requestId}`.execute(this.tx);
    this.progress(`checked ${templates.checked} templates, ${templates.problems.length} do not compile`);
    return {
      netboxVersion: this.source.version,
      tenant: '',
      dryRun: Boolean(this.options.dryRun),
      ms: 0,
      tables,
      tablesWithoutHome,
      accounts: accounts.report,
      templates: templates.problems,
      changeLogEntries: changes[0]!.n,
    };
  }

  /**
   * Objects are matched by number, so a first import goes into a tenant without objects of the mapped models: a
   * tenant's own device 17 would otherwise be taken for NetBox's device 17 and overwritten. A tenant an earlier
   * import wrote to (its change log says so) is a re-run.
   */
  private async refuseForeignObjects(models: ModelDef[]): Promise<void> {
    const { rows: earlier } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM (SELECT 1 FROM object_changes
      WHERE ${inTenant(this.tenantId)} AND request_id LIKE 'netbox-import:%' LIMIT 1) x`.execute(this.tx);
    if (earlier[0]!.n > 0) return;
    for (const model of [...new Set(models)]) {
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM (SELECT 1 FROM ${sql.table(model.table)} WHERE ${inTenant(this.tenantId)} LIMIT 1) x`.execute(this.tx);
      if (rows[0]!.n > 0) {
        throw new NetBoxImportError(`the tenant already has ${model.labelPlural} of its own (not imported from NetBox): import into a new tenant with --tenant NEW-SLUG`);
      }
    }
  }

  /** What an entry reads of its table beside the columns (joined values), as rows() takes it. */
  private selectOf(entry: TableMapping, table: string): string {
    return entry.select?.(this.source.version, this.source.columns(table)) ?? '';
  }

  private tableOf(spec: string | string[]): string | null {
    for (const t of Array.isArray(spec) ? spec : [spec]) if (this.source.hasTable(t)) return t;
    return null;
  }

  private async preload(names: string[]): Promise<void> {
    for (const name of names) {
      if (this.preloaded.has(name)) continue;
      const table = this.tableOf(PRELOAD_ALIASES[name] ?? [name]);
      let rows: NetBoxRow[] = [];
      if (table === 'extras_eventrule') {
        const ots = this.source.hasTable('extras_eventrule_object_types') ? 'extras_eventrule_object_types' : null;
        rows = await this.source.rows(table, ots ? `ARRAY(SELECT ct.app_label || '.' || ct.model FROM ${ots} x JOIN django_content_type ct ON ct.id = x.objecttype_id WHERE x.eventrule_id = t.id) AS netbox_object_types` : '');
        for (const r of rows) r.object_types = ((r.netbox_object_types as string[] | undefined) ?? []).map((n) => RENAMED_MODELS[n] ?? n).filter((n) => getModel(n));
      } else if (table) {
        rows = await this.source.rows(table);
      }
      this.preloaded.set(name, rows);
      this.preloadedById.set(name, new Map(rows.filter((r) => r.id !== undefined).map((r) => [Number(r.id), r])));
    }
  }

  // ------------------------------------------------------------------ one table

  private async importTable(entry: TableMapping, table: string, model: ModelDef): Promise<EntryState> {
    const columns = this.source.columns(table);
    const rows = await this.source.rows(table, this.selectOf(entry, table));
    await this.preload(entry.preload ?? []);
    const cols = await cairnColumns(this.tx, model.table);
    const report: TableReport = { table, model: model.name, read: rows.length, created: 0, updated: 0, unchanged: 0, skipped: {}, columnsWithoutHome: {}, adapted: {} };
    this.currentReport = report;
    const offset = entry.numidOffset ?? 0;

    // Ids first (existing objects by number, new ones fresh), so rows can point at rows of their own table.
    const existing = await this.existingIds(model, offset, rows.map((r) => Number(r.id)));
    const idsOfTable = new Map<number, string>();
    this.ids.set(table, idsOfTable);
    const reserved = this.reserved.get(table);
    for (const r of rows) idsOfTable.set(Number(r.id), existing.get(Number(r.id)) ?? reserved?.get(Number(r.id)) ?? uuidv7());

    if (model.fields.status?.kind === 'fk' && model.fields.status.target === 'extras.status' && columns.has('status') && !(entry.columns && 'status' in entry.columns)) {
      await this.ensureStatuses(model, rows.map((r) => String(r.status)));
    }
    const fields = this.planFields(entry, table, model, cols, columns, rows.length);
    const used = new Set<string>(fields.map((f) => f.key));

    // Which rows are kept, and their values (deferred references are set in the second pass).
    const kept: NetBoxRow[] = [];
    const values: unknown[][] = fields.map(() => []);
    for (const row of rows) {
      const reason = entry.skip?.(row, this.cx) ?? this.missingReference(fields, row);
      if (reason) {
        report.skipped[reason] = (report.skipped[reason] ?? 0) + 1;
        idsOfTable.delete(Number(row.id));
        continue;
      }
      kept.push(row);
    }
    for (const f of fields) if (f.atCommit) await this.reserve(f.refTable!, kept.map((row) => f.read(row)));
    for (const row of kept) {
      fields.forEach((f, i) => values[i]!.push(f.atCommit ? this.reservedRef(f.refTable!, f.read(row)) : f.deferred ? null : this.checked(table, row, f)));
    }
    // Custom fields, checked against the imported definitions' names (a value of a field that did not come
    // across is left out, and counted).
    const cfCol = cols.get('custom_fields');
    const customFields = cfCol && Object.values(model.fields).some((f) => f.kind === 'custom_fields')
      ? kept.map((row) => this.customFieldsOf(row, report)) : null;

    // NetBox columns with values that no Cairn field takes (reported, so nothing is dropped silently).
    const consumed = new Set<string>([...(entry.reads ?? []), ...fields.map((f) => f.key), ...fields.map((f) => `${f.key}_id`), ...Object.keys(entry.columns ?? {}).flatMap((k) => [k, `${k}_id`])]);
    const ownerColumn = this.source.columnReferencing(table, 'tenancy_tenant');
    if (model.fields.owner && ownerColumn) consumed.add(ownerColumn);
    if (model.fields.status?.kind === 'fk') consumed.add('status');
    for (const c of columns) {
      if (BOOKKEEPING.has(c) || consumed.has(c) || /_count$/.test(c) || /^(scope|assigned_object|interface|termination)_(type_)?id$/.test(c)) continue;
      const n = kept.filter((r) => hasValue(r[c])).length;
      if (n) report.columnsWithoutHome[c] = n;
    }

    // A new row is written with every value but the deferred references (those checked at commit included); an
    // existing one is compared on the values known now, its deferred references in the second pass.
    const live = fields.map((f, i) => ({ f, i })).filter(({ f }) => !f.deferred || f.atCommit);
    // Fields the write path transforms (secrets encrypted at rest): transformed here for new rows; an existing
    // object keeps its stored secret (an encryption differs every time, so a comparison would always see a change).
    const transformed = live.filter(({ f }) => f.def.transform);
    const newIdx: number[] = [];
    const oldIdx: number[] = [];
    kept.forEach((row, k) => (existing.has(Number(row.id)) ? oldIdx : newIdx).push(k));

    for (const { f, i } of transformed) {
      for (const k of newIdx) {
        const v = values[i]![k];
        if (v === null || v === undefined || v === '') {
          values[i]![k] = f.col.nullable ? null : v;
          continue;
        }
        try {
          values[i]![k] = await f.def.transform!(v);
        } catch (err) {
          throw new NetBoxImportError(`${table} id ${String(kept[k]!.id)}, field ${f.key}: ${messageOf(err)}`);
        }
      }
    }
    if (newIdx.length) {
      const loadCols: LoadColumn[] = [['id', 'uuid'], ['numid', 'int8']];
      const data: unknown[][] = [newIdx.map((k) => idsOfTable.get(Number(kept[k]!.id))!), newIdx.map((k) => Number(kept[k]!.id) + offset)];
      for (const { f, i } of live) {
        const t = bindType(f.col);
        loadCols.push([f.col.name, t.pgType, t.cast]);
        data.push(newIdx.map((k) => encodeForArray(f.col, values[i]![k])));
      }
      if (customFields && cfCol) {
        loadCols.push(['custom_fields', 'jsonb']);
        data.push(newIdx.map((k) => JSON.stringify(customFields[k])));
      }
      await this.guard(table, model, kept, newIdx, fields, () => new BulkLoad(this.tx, this.ctx).insert(model, loadCols, data));
      report.created = newIdx.length;
    }
    if (oldIdx.length) {
      const setCols = live.filter(({ f }) => !f.def.transform && !f.deferred).map(({ f, i }) => ({ col: f.col, values: values[i]! }));
      if (customFields && cfCol) setCols.push({ col: cfCol, values: customFields });
      const changed = await this.applyChanges(table, model, kept, oldIdx, setCols, fields);
      report.updated = changed;
      report.unchanged = oldIdx.length - changed;
    }
    await this.writeManyToMany(entry, table, model, kept);
    await this.writeTags(table, model, kept);
    if (entry.special === 'cable_terminations') await this.writeCableEnds(table, kept);
    if (table === 'extras_customfield') this.customFieldNames = new Set(kept.map((r) => String(r.name)));
    if (table === 'extras_tag') this.tagIds = new Map(kept.map((r) => [Number(r.id), idsOfTable.get(Number(r.id))!]));
    void used;
    const state: EntryState = { entry, table, model, rows, kept, fields, report, existing: new Set(oldIdx) };
    this.states.push(state);
    return state;
  }

  /** Which Cairn field takes which NetBox column (by the entry, else by convention), and how. */
  private planFields(entry: TableMapping, table: string, model: ModelDef, cols: Map<string, CairnColumn>, nbColumns: Set<string>, rowCount: number): PlannedField[] {
    const out: PlannedField[] = [];
    const myOrder = this.order.get(table) ?? 0;
    for (const [key, def] of Object.entries(model.fields)) {
      // A field only the server sets (a journal entry's author) is the import's to set where the entry says how.
      if ((def.readOnly && !(entry.columns && key in entry.columns)) || ['tags', 'custom_fields', 'm2m', 'generic_m2m'].includes(def.kind)) continue;
      const colName = def.column ?? (def.kind === 'fk' && !key.endsWith('_id') ? `${key}_id` : key);
      const col = cols.get(colName);
      if (!col || col.generated) continue;
      const given = entry.columns?.[key];
      if (given === null) continue;
      if (typeof given === 'function') {
        out.push({ key, def, col, refTable: null, read: (row) => given(row, this.cx), deferred: false, atCommit: false });
        continue;
      }
      if (def.kind === 'fk' && def.target === 'extras.status' && given === undefined) {
        if (!nbColumns.has('status')) continue;
        out.push({ key, def, col, refTable: null, read: (row) => this.statusIds.get(`${model.name}:${String(row.status)}`) ?? null, deferred: false, atCommit: false });
        continue;
      }
      if (def.kind === 'fk') {
        const nbCol = typeof given === 'string' ? given : def.target === 'tenancy.owner' ? this.source.columnReferencing(table, 'tenancy_tenant') : [`${key}_id`, key].find((c) => nbColumns.has(c) && c.endsWith('_id'));
        if (!nbCol || !nbColumns.has(nbCol)) continue;
        const refTable = this.source.fkTarget(table, nbCol);
        if (!refTable) continue;
        const targetOrder = this.order.get(refTable);
        // A reference to a table written later is set in the second pass; so is one to the row's own table when the
        // rows span several insert statements (a parent in a later statement would not exist yet).
        const later = targetOrder !== undefined && (targetOrder > myOrder || (targetOrder === myOrder && rowCount > SELF_REFERENCES_IN_ONE_STATEMENT));
        const atCommit = later && col.nullable && this.checkedAtCommit.get(model.table)?.has(col.name) === true;
        out.push({ key, def, col, refTable, read: (row) => row[nbCol], deferred: later, atCommit });
        continue;
      }
      const nbCol = typeof given === 'string' ? given : key;
      if (!nbColumns.has(nbCol)) continue;
      out.push({ key, def, col, refTable: null, read: (row) => row[nbCol], deferred: false, atCommit: false });
    }
    return out;
  }

  /** A required reference to a row that did not come across: the row cannot either. */
  private missingReference(fields: PlannedField[], row: NetBoxRow): string | null {
    for (const f of fields) {
      if (!f.refTable || f.col.nullable) continue;
      const raw = f.read(row);
      if (raw === null || raw === undefined) continue;
      if (!this.ref(f.refTable, raw) && !f.deferred) {
        return this.order.has(f.refTable) ? `${f.key} is a ${f.refTable} row that was not imported` : `${f.key} is a ${f.refTable} row (no home in Cairn yet)`;
      }
    }
    return null;
  }

  /** A field's value for a row, as Cairn stores it, or a one-line refusal naming the table, id and field. */
  private checked(table: string, row: NetBoxRow, f: PlannedField): unknown {
    let check = this.checks.get(f);
    if (!check) this.checks.set(f, (check = this.checkOf(table, f)));
    return check(row);
  }

  /**
   * How a field's values are read and checked, decided once per field (its column type, limits, choices) rather
   * than for each of a table's rows: a table of 200,000 interfaces is millions of values.
   */
  private checkOf(table: string, f: PlannedField): (row: NetBoxRow) => unknown {
    const refuse = (row: NetBoxRow, why: string): never => {
      throw new NetBoxImportError(`${table} id ${String(row.id)}, field ${f.key}: ${why}`);
    };
    const kind = f.def.kind;
    const blankIsNull = kind === 'color' || (f.col.nullable && (kind === 'choice' || kind === 'fk' || kind === 'date' || kind === 'integer' || kind === 'decimal'));
    const fallback = f.col.nullable ? null : defaultValue(f.col);
    const udt = f.col.udt;
    const whole = udt === 'int2' || udt === 'int4' || udt === 'int8';
    const textual = udt === 'varchar' || udt === 'text' || udt === 'bpchar';
    const max = f.col.maxLength ?? f.def.maxLength;
    const choices = kind === 'choice' ? (f.def.choices ?? (f.def.vocabulary ? vocabularyOptions(f.def.vocabulary) : null)) : null;
    const allowed = choices ? new Set(choices.map((o) => o.value)) : null;
    const { min: lowest, max: highest } = f.def;
    return (row) => {
      let v = f.read(row);
      if (f.refTable) v = v === null || v === undefined ? null : this.ref(f.refTable, v);
      // NetBox's blank colour (a circuit type without one) is Cairn's none, or the column's default; so is a
      // blank choice, reference, date or number where the column takes none.
      if (v === '' && blankIsNull) v = null;
      if (v === null || v === undefined) {
        if (f.col.nullable) return null;
        if (fallback) return fallback.value;
        return refuse(row, 'a value is required');
      }
      if (whole) {
        const n = Number(v);
        if (!Number.isInteger(n)) refuse(row, `${String(v)} is not a whole number`);
        if (lowest !== undefined && n < lowest) refuse(row, `${n} is below ${lowest}`);
        if (highest !== undefined && n > highest) refuse(row, `${n} is above ${highest}`);
        return n;
      }
      if (udt === 'numeric') return String(v);
      if (udt === 'bool') return Boolean(v);
      if (textual) {
        const text = v instanceof Date ? v.toISOString() : String(v);
        if (max && text.length > max) refuse(row, `${text.length} characters, at most ${max} here`);
        if (allowed && !allowed.has(text)) refuse(row, `"${text}" is not one of Cairn's values (${choices!.map((o) => o.value).slice(0, 12).join(', ')}${choices!.length > 12 ? ', …' : ''})`);
        if (kind === 'color' && !/^[0-9a-f]{6}$/i.test(text)) refuse(row, `"${text}" is not a colour (six hex digits)`);
        return text;
      }
      if (udt.startsWith('_')) {
        if (!Array.isArray(v)) refuse(row, 'expected a list');
        return v;
      }
      if (v instanceof Date) return v.toISOString();
      return v;
    };
  }

  private customFieldsOf(row: NetBoxRow, report: TableReport): Record<string, unknown> {
    const data = (row.custom_field_data ?? {}) as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(data)) {
      if (this.customFieldNames.has(k)) out[k] = v;
      else if (v !== null) report.columnsWithoutHome[`custom_field_data.${k}`] = (report.columnsWithoutHome[`custom_field_data.${k}`] ?? 0) + 1;
    }
    return out;
  }

  /** Runs a write; a constraint it breaks becomes a one-line refusal naming the NetBox row and field. */
  private async guard(table: string, model: ModelDef, kept: NetBoxRow[], idx: number[], fields: PlannedField[], write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (err) {
      // A validate rule the load ran row by row (core/crud/bulk-load.ts): its row is the NetBox row at that place.
      if (err instanceof RowRefused) {
        const [field, messages] = Object.entries(err.errors)[0] ?? ['unknown', ['refused']];
        throw new NetBoxImportError(`${table} id ${String(kept[idx[err.row]!]?.id ?? '?')}, field ${field}: ${messages.join(' ')}`);
      }
      const e = err as { code?: string; detail?: string; constraint?: string; message?: string };
      if (e.code === '23505' || e.code === '23503' || e.code === '23514' || e.code === '23502') {
        const m = /Key \(([^)]*)\)=\((.*)\) (already exists|is not present)/.exec(e.detail ?? '');
        const keyCols = m ? m[1]!.split(', ').filter((c) => c !== TENANT_COLUMN) : [];
        const keyVals = m ? m[2]!.split(', ') : [];
        const field = fields.find((f) => keyCols.includes(f.col.name))?.key ?? keyCols[keyCols.length - 1] ?? e.constraint ?? 'unknown';
        // The NetBox row: the one whose values are the key's (the last column's value is the telling one).
        const last = keyVals[keyVals.length - 1];
        const f = fields.find((x) => x.col.name === keyCols[keyCols.length - 1]);
        const culprit = f && last !== undefined ? idx.map((k) => kept[k]!).filter((r) => String(this.checkedQuiet(table, r, f)) === last).pop() : undefined;
        throw new NetBoxImportError(`${table} id ${culprit ? String(culprit.id) : '?'}, field ${field}: ${e.code === '23505' ? `${last ?? 'the value'} already exists (unique in Cairn: ${keyCols.join(', ')})` : (e.message ?? 'refused')}`);
      }
      // A value the column's type refuses (class 22: data exceptions), with the database's own words.
      if (e.code?.startsWith('22')) throw new NetBoxImportError(`${table}: ${String(e.message).split('\n')[0]}`);
      throw err;
    }
    void model;
  }

  private checkedQuiet(table: string, row: NetBoxRow, f: PlannedField): unknown {
    try {
      return this.checked(table, row, f);
    } catch {
      return undefined;
    }
  }

  /** Updates existing objects whose values differ (compared in SQL, by the columns' own types); returns how many. */
  private async applyChanges(table: string, model: ModelDef, kept: NetBoxRow[], idx: number[], setCols: Array<{ col: CairnColumn; values: unknown[] }>, fields: PlannedField[]): Promise<number> {
    if (setCols.length === 0) return 0;
    const ids = idx.map((k) => this.ref(table, kept[k]!.id)!);
    const arrays = setCols.map(({ col, values }, i) => {
      const t = bindType(col);
      return { bind: sql`${idx.map((k) => encodeForArray(col, values[k]))}::${sql.raw(t.pgType)}[]`, sel: t.cast ? sql`${sql.ref(`u.c${i}`)}::${sql.raw(t.cast)}` : sql.ref(`u.c${i}`) };
    });
    const { rows: changed } = await sql<{ id: string }>`SELECT t.id FROM ${sql.table(model.table)} t
      JOIN unnest(${ids}::uuid[], ${sql.join(arrays.map((a) => a.bind))}) AS u(id, ${sql.join(setCols.map((_c, i) => sql.ref(`c${i}`)))}) ON t.id = u.id
      WHERE (${sql.join(setCols.map(({ col }) => sql.ref(`t.${col.name}`)))}, NULL::int) IS DISTINCT FROM (${sql.join(arrays.map((a) => a.sel))}, NULL::int)`.execute(this.tx);
    if (changed.length === 0) return 0;
    const position = new Map(ids.map((id, j) => [id, j]));
    const changes = changed.map(({ id }) => {
      const j = position.get(id)!;
      return { id, columns: Object.fromEntries(setCols.map(({ col, values }) => [col.name, values[idx[j]!] ?? null])) };
    });
    // (Refusals name the NetBox row of each change: the changes are a subset of idx, in their own order.)
    const changedIdx = changes.map((c) => idx[position.get(c.id)!]!);
    await this.guard(table, model, kept, changedIdx, fields, () => updateRows(this.tx, this.ctx, model, changes, { rowRules: true }));
    return changed.length;
  }

  /**
   * The second pass: references to tables written after the row's own (an interface's LAG in a later statement).
   * Existing objects are compared on every row; a new row only where it has something to set: a reference
   * written now, or one reserved at insert (checked at commit) whose target did not come across, cleared here so
   * the commit's check passes.
   */
  private async writeDeferred(): Promise<void> {
    for (const state of this.states) {
      const deferred = state.fields.filter((f) => f.deferred);
      if (deferred.length === 0 || state.kept.length === 0) continue;
      const setCols = deferred.map((f) => ({ col: f.col, values: state.kept.map((row) => {
        const raw = f.read(row);
        const resolved = raw === null || raw === undefined ? null : this.ref(f.refTable!, raw);
        if (raw !== null && raw !== undefined && !resolved) state.report.columnsWithoutHome[`${f.key} (not imported)`] = (state.report.columnsWithoutHome[`${f.key} (not imported)`] ?? 0) + 1;
        return resolved;
      }) }));
      const idx: number[] = [];
      for (let k = 0; k < state.kept.length; k++) {
        const toSet = state.existing.has(k) || deferred.some((f, j) => (f.atCommit ? setCols[j]!.values[k] === null && hasValue(f.read(state.kept[k]!)) : setCols[j]!.values[k] !== null));
        if (toSet) idx.push(k);
      }
      if (idx.length) await this.applyChanges(state.table, state.model, state.kept, idx, setCols, deferred);
    }
  }

  /**
   * Foreign keys the schema lets a transaction check at commit (a device's primary addresses, which are written
   * after the device) are checked there for the import: a new device is written with its addresses' ids at once.
   */
  private async deferDeferrableKeys(): Promise<void> {
    const { rows } = await sql<{ constraint: string; table: string; column: string }>`SELECT c.conname AS constraint, t.relname AS table, a.attname AS column
      FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
      WHERE c.contype = 'f' AND c.condeferrable AND cardinality(c.conkey) = 1 AND t.relnamespace = current_schema()::regnamespace`.execute(this.tx);
    if (rows.length === 0) return;
    for (const r of rows) {
      let columns = this.checkedAtCommit.get(r.table);
      if (!columns) this.checkedAtCommit.set(r.table, (columns = new Set()));
      columns.add(r.column);
    }
    await sql`SET CONSTRAINTS ${sql.join(rows.map((r) => sql.id(r.constraint)))} DEFERRED`.execute(this.tx);
  }

  /**
   * Gives out the Cairn ids of NetBox rows of `table` (not written yet) that new rows point at: the object's id
   * when an earlier run wrote it, else a new one that the table's own import will use.
   */
  private async reserve(table: string, netboxIds: unknown[]): Promise<void> {
    let reserved = this.reserved.get(table);
    if (!reserved) this.reserved.set(table, (reserved = new Map()));
    const wanted = [...new Set(netboxIds.filter(hasValue).map(Number))].filter((id) => !reserved!.has(id));
    if (wanted.length === 0) return;
    const model = getModel(this.modelOfTable.get(table) ?? '');
    if (!model) return;
    const existing = await this.existingIds(model, this.numidOffset(table), wanted);
    for (const id of wanted) reserved.set(id, existing.get(id) ?? uuidv7());
  }

  /** NetBox id → Cairn id of the objects an earlier run wrote from these NetBox rows (matched by number). */
  private async existingIds(model: ModelDef, offset: number, netboxIds: number[]): Promise<Map<number, string>> {
    const { rows } = await sql<{ id: string; numid: string }>`SELECT id, numid FROM ${sql.table(model.table)}
      WHERE ${inTenant(this.tenantId)} AND numid = ANY(${netboxIds.map((id) => id + offset)}::int8[])`.execute(this.tx);
    return new Map(rows.map((r) => [Number(r.numid) - offset, r.id]));
  }

  private reservedRef(table: string, raw: unknown): string | null {
    if (!hasValue(raw)) return null;
    return this.reserved.get(table)?.get(Number(raw)) ?? null;
  }

  // ------------------------------------------------------------------ relations

  private async writeManyToMany(entry: TableMapping, table: string, model: ModelDef, kept: NetBoxRow[]): Promise<void> {
    for (const [key, join] of Object.entries(entry.m2m ?? {})) {
      const def = model.fields[key];
      const joinTable = this.tableOf(join.table);
      if (!def?.through || !joinTable) continue;
      const targetTable = this.source.fkTarget(joinTable, join.to);
      if (!targetTable) continue;
      const keptIds = new Set(kept.map((r) => Number(r.id)));
      const links = (await this.source.rows(joinTable)).filter((r) => keptIds.has(Number(r[join.from])));
      const from: string[] = [];
      const to: string[] = [];
      for (const l of links) {
        const a = this.ref(table, l[join.from]);
        const b = this.ref(targetTable, l[join.to]);
        if (a && b) {
          from.push(a);
          to.push(b);
        }
      }
      if (from.length === 0) continue;
      const through = def.through;
      const inTenantTable = (await cairnColumns(this.tx, through.table)).has(TENANT_COLUMN);
      await new BulkLoad(this.tx, this.ctx).link(through.table, [[through.from, 'uuid'], [through.to, 'uuid']], [from, to], {}, { skipExisting: true, inTenant: inTenantTable });
    }
  }

  private async writeTags(table: string, model: ModelDef, kept: NetBoxRow[]): Promise<void> {
    if (!Object.values(model.fields).some((f) => f.kind === 'tags')) return;
    const cts = new Set([...this.source.contentTypes].filter(([, t]) => t === table).map(([id]) => id));
    const objectIds: string[] = [];
    const tagIds: string[] = [];
    const keptIds = new Set(kept.map((r) => Number(r.id)));
    for (const t of this.taggedItems) {
      if (!cts.has(Number(t.content_type_id)) || !keptIds.has(Number(t.object_id))) continue;
      const obj = this.ref(table, t.object_id);
      const tag = this.tagIds.get(Number(t.tag_id));
      if (obj && tag) {
        objectIds.push(obj);
        tagIds.push(tag);
      }
    }
    if (objectIds.length === 0) return;
    await new BulkLoad(this.tx, this.ctx).tag(model, objectIds, tagIds);
  }

  /** Both ends of each cable (cables with an end Cairn does not take were left out by the entry's skip). */
  private async writeCableEnds(table: string, kept: NetBoxRow[]): Promise<void> {
    const byCable = endsOf(this.cx.rowsOf('dcim_cabletermination'));
    const cable: string[] = [];
    const end: string[] = [];
    const type: string[] = [];
    const term: string[] = [];
    const kinds = cableEndModels();
    for (const row of kept) {
      for (const e of byCable.get(Number(row.id)) ?? []) {
        const target = this.cx.object(e.termination_type_id, e.termination_id);
        if (!target || !kinds.has(target.model)) continue;
        cable.push(this.ref(table, row.id)!);
        end.push(String(e.cable_end));
        type.push(target.model);
        term.push(target.id);
      }
    }
    if (cable.length === 0) return;
    await new BulkLoad(this.tx, this.ctx).link('cable_terminations', [['cable_id', 'uuid'], ['cable_end', 'text'], ['termination_type', 'text'], ['termination_id', 'uuid']], [cable, end, type, term], {}, { skipExisting: true });
  }

  // ------------------------------------------------------------------ statuses

  /** NetBox's status strings as Cairn statuses available to the model: existing ones extended, missing ones created. */
  private async ensureStatuses(model: ModelDef, values: string[]): Promise<void> {
    const slugs = [...new Set(values.filter((v) => v && v !== 'null'))];
    if (slugs.length === 0) return;
    const statusModel = requireModel('extras.status');
    const { rows } = await sql<{ id: string; slug: string; available_to: string[] }>`SELECT id, slug, available_to FROM statuses
      WHERE ${inTenant(this.tenantId)} AND slug = ANY(${slugs}::text[])`.execute(this.tx);
    const have = new Map(rows.map((r) => [r.slug, r]));
    const missing = slugs.filter((s) => !have.has(s));
    if (missing.length) {
      const created = await insertRows(this.tx, this.ctx, statusModel, missing.map((slug) => ({ name: labelOf(slug), slug, available_to: [model.name] })));
      for (const r of created) have.set(String(r.slug), { id: String(r.id), slug: String(r.slug), available_to: [model.name] });
    }
    const extend = [...have.values()].filter((r) => !r.available_to.includes(model.name));
    if (extend.length) await updateRows(this.tx, this.ctx, statusModel, extend.map((r) => ({ id: r.id, columns: { available_to: [...r.available_to, model.name] } })));
    for (const [slug, r] of have) this.statusIds.set(`${model.name}:${slug}`, r.id);
  }

  // ------------------------------------------------------------------ after the rows

  /** Addresses and prefixes repeated in a space that refuses duplicates (what the models' hooks check per row). */
  /** NetBox 4.2 MAC addresses that are no interface's (or VM interface's) primary one. */
  private async unusedMacAddresses(): Promise<number> {
    const primaryOf = ['dcim_interface', 'virtualization_vminterface'].filter((t) => this.source.columns(t).has('primary_mac_address_id'));
    const unused = primaryOf.map((t) => `NOT EXISTS (SELECT 1 FROM ${quoteIdent(t)} i WHERE i.primary_mac_address_id = m.id)`).join(' AND ') || 'true';
    const [row] = await this.source.query<{ n: string }>(`SELECT count(*) AS n FROM dcim_macaddress m WHERE ${unused}`);
    return Number(row!.n);
  }

  private async refuseDuplicateAddresses(): Promise<void> {
    // The key an address or prefix is unique by (an address by its host: the stored column).
    const checks = [
      { table: 'ip_addresses', nb: 'ipam_ipaddress', field: 'address', key: sql`a.host` },
      { table: 'prefixes', nb: 'ipam_prefix', field: 'prefix', key: sql`a.prefix` },
    ];
    const global = globalUniqueEnforced();
    for (const c of checks) {
      if (!this.ids.has(c.nb)) continue;
      // Each row numbered within its VRF (the global table is one: PARTITION BY groups NULLs) and key, so a repeat
      // is any row numbered past 1: one sort of the tenant's rows. A self-join on "same VRF" (IS NOT DISTINCT FROM,
      // which no index serves) compared every pair: 5 s for 4,000 addresses, hours for 100,000.
      const { rows } = await sql<{ numid: string; value: string; vrf_name: string | null }>`SELECT x.numid, x.value, v.name AS vrf_name
        FROM (SELECT a.numid, a.vrf_id, a.${sql.raw(c.field)}::text AS value, row_number() OVER (PARTITION BY a.vrf_id, ${c.key} ORDER BY a.numid) AS nth
          FROM ${sql.table(c.table)} a WHERE ${inTenant(this.tenantId, 'a')}) x
        LEFT JOIN vrfs v ON v.id = x.vrf_id
        WHERE x.nth > 1 AND (CASE WHEN x.vrf_id IS NULL THEN ${global} ELSE v.enforce_unique END)
        ORDER BY x.numid LIMIT 1`.execute(this.tx);
      const dup = rows[0];
      if (dup) throw new NetBoxImportError(`${c.nb} id ${dup.numid}, field ${c.field}: ${dup.value} already exists in ${dup.vrf_name ? `VRF ${dup.vrf_name}` : 'the global table'}, where ${c.field === 'address' ? 'addresses' : 'prefixes'} are unique (set the VRF's enforce_unique off in NetBox, or CAIRN_ENFORCE_GLOBAL_UNIQUE=false)`);
    }
  }

  /** What is added to a NetBox id of `table` to make the object's number (its entry's offset). */
  private numidOffset(table: string): number {
    const index = this.order.get(table);
    return index === undefined ? 0 : (TABLE_MAP[index]!.numidOffset ?? 0);
  }

  /** NetBox's id of a Cairn object written from `table`. */
  private netboxId(table: string, numid: string | number): number {
    return Number(numid) - this.numidOffset(table);
  }

  /**
   * Devices placed as a device's own writes would refuse, checked once over the tenant with the rules' own
   * conditions (dcim/rack-rules.ts): a position outside the rack, a position on a 0U device, a unit (and face, or
   * either face for full-depth devices) another device holds. The later device by NetBox id is the one named.
   */
  private async refuseMisplacedDevices(): Promise<void> {
    if (!this.ids.has('dcim_device')) return;
    const { rows: outside } = await sql<{ numid: string; model: string; position: number; last: number; rack: string; bottom: number; top: number; u: number }>`
      SELECT a.numid, t.model, a.position, a.position + t.u_height - 1 AS last, r.name AS rack, r.starting_unit AS bottom,
        r.starting_unit + r.u_height - 1 AS top, t.u_height AS u
      FROM devices a JOIN device_types t ON t.id = a.device_type_id JOIN racks r ON r.id = a.rack_id
      WHERE ${inTenant(this.tenantId, 'a')} AND a.position IS NOT NULL AND ${placedOutside('a', 't', 'r')}
      ORDER BY a.numid LIMIT 1`.execute(this.tx);
    const o = outside[0];
    if (o) {
      const why = o.u === 0 ? `a ${o.model} is 0U: it takes no unit, so it cannot have a position`
        : `${o.u === 1 ? `U${o.position}` : `U${o.position}–U${o.last}`} is outside rack ${o.rack} (U${o.bottom}–U${o.top})`;
      throw new NetBoxImportError(`dcim_device id ${this.netboxId('dcim_device', o.numid)}, field position: ${why}`);
    }
    const { rows: shared } = await sql<{ numid: string; occupant: string; unit: number; face: string }>`
      SELECT a.numid, b.name AS occupant, greatest(a.position, b.position) AS unit, ${sharedFace('a', 'b', 'bt')} AS face
      FROM devices a JOIN device_types at ON at.id = a.device_type_id
      JOIN devices b ON b.rack_id = a.rack_id AND b.numid < a.numid AND b.position IS NOT NULL
      JOIN device_types bt ON bt.id = b.device_type_id
      WHERE ${inTenant(this.tenantId, 'a')} AND a.position IS NOT NULL AND ${unitsShared('a', 'at', 'b', 'bt')}
      ORDER BY a.numid LIMIT 1`.execute(this.tx);
    const s = shared[0];
    if (s) throw new NetBoxImportError(`dcim_device id ${this.netboxId('dcim_device', s.numid)}, field position: U${s.unit} ${s.face} is taken by ${s.occupant}`);
  }

  /**
   * Primary addresses as a device's or VM's own writes would refuse them (checkPrimaryIps): of the slot's family,
   * and assigned to one of the object's own interfaces.
   */
  private async refuseForeignPrimaryAddresses(): Promise<void> {
    const owners = [
      { table: 'dcim_device', label: 'device', objects: sql`devices`, interfaces: sql`interfaces`, owner: sql`device_id`, assigned: sql`assigned_interface_id` },
      { table: 'virtualization_virtualmachine', label: 'virtual machine', objects: sql`virtual_machines`, interfaces: sql`vm_interfaces`, owner: sql`virtual_machine_id`, assigned: sql`assigned_vm_interface_id` },
    ];
    for (const o of owners) {
      if (!this.ids.has(o.table)) continue;
      const { rows } = await sql<{ numid: string; slot: string; address: string; family: number; wanted: number }>`
        SELECT d.numid, s.slot, a.address::text AS address, family(a.address) AS family, s.wanted
        FROM ${o.objects} d
        CROSS JOIN LATERAL (VALUES ('primary_ip4', d.primary_ip4_id, 4), ('primary_ip6', d.primary_ip6_id, 6)) AS s(slot, ip, wanted)
        JOIN ip_addresses a ON a.id = s.ip
        LEFT JOIN ${o.interfaces} i ON i.id = a.${o.assigned}
        WHERE ${inTenant(this.tenantId, 'd')} AND (family(a.address) <> s.wanted OR i.${o.owner} IS DISTINCT FROM d.id)
        ORDER BY d.numid, s.slot LIMIT 1`.execute(this.tx);
      const r = rows[0];
      if (!r) continue;
      const why = r.family !== r.wanted ? `${r.slot} takes an IPv${r.wanted} address; ${r.address} is IPv${r.family}`
        : `${r.address} is not assigned to an interface of this ${o.label} (Cairn keeps a primary address on the object's own interfaces)`;
      throw new NetBoxImportError(`${o.table} id ${this.netboxId(o.table, r.numid)}, field ${r.slot}: ${why}`);
    }
  }

  /**
   * Interfaces related as their own writes would refuse (checkInterfaceRelations, vlan-scope.ts): a LAG or parent
   * on another device, a LAG that is not of type lag, a VLAN outside the host's scope (global VLANs, its site's,
   * those of a group of its site or the site's region).
   */
  private async refuseInterfaceRelations(): Promise<void> {
    if (this.ids.has('dcim_interface')) {
      const { rows } = await sql<{ numid: string; field: string; other: string; device: string; type: string; same: boolean }>`
        SELECT i.numid, r.field, o.name AS other, od.name AS device, o.type, o.device_id = i.device_id AS same
        FROM interfaces i CROSS JOIN LATERAL (VALUES ('lag', i.lag_id), ('parent', i.parent_id)) AS r(field, target)
        JOIN interfaces o ON o.id = r.target JOIN devices od ON od.id = o.device_id
        WHERE ${inTenant(this.tenantId, 'i')} AND r.target IS NOT NULL
          AND (o.id = i.id OR o.device_id <> i.device_id OR (r.field = 'lag' AND o.type <> 'lag'))
        ORDER BY i.numid, r.field LIMIT 1`.execute(this.tx);
      const r = rows[0];
      if (r) {
        const what = r.field === 'lag' ? 'LAG' : 'parent';
        const why = !r.same ? `${r.device} › ${r.other} is on another device: the ${what} must be an interface of the same device`
          : r.field === 'lag' && r.type !== 'lag' ? `${r.device} › ${r.other} is not a LAG (its type is ${r.type})` : `an interface cannot be its own ${what}`;
        throw new NetBoxImportError(`dcim_interface id ${this.netboxId('dcim_interface', r.numid)}, field ${r.field}: ${why}`);
      }
    }
    const hosts = [
      { table: 'dcim_interface', noun: 'device', interfaces: sql`interfaces`, tagged: sql`interface_tagged_vlans`, from: sql`interface_id`,
        site: sql`(SELECT d.site_id FROM devices d WHERE d.id = i.device_id)` },
      { table: 'virtualization_vminterface', noun: 'virtual machine', interfaces: sql`vm_interfaces`, tagged: sql`vm_interface_tagged_vlans`, from: sql`vm_interface_id`,
        site: sql`(SELECT coalesce(vm.site_id, c.site_id) FROM virtual_machines vm LEFT JOIN clusters c ON c.id = vm.cluster_id WHERE vm.id = i.virtual_machine_id)` },
    ];
    for (const h of hosts) {
      if (!this.ids.has(h.table)) continue;
      const { rows } = await sql<{ numid: string; field: string; vid: number; name: string }>`
        SELECT x.numid, x.field, v.vid, v.name FROM (
          SELECT i.numid, 'untagged_vlan' AS field, i.untagged_vlan_id AS vlan_id, ${h.site} AS site_id FROM ${h.interfaces} i
          WHERE ${inTenant(this.tenantId, 'i')} AND i.untagged_vlan_id IS NOT NULL
          UNION ALL
          SELECT i.numid, 'tagged_vlans', t.vlan_id, ${h.site} FROM ${h.tagged} t JOIN ${h.interfaces} i ON i.id = t.${h.from}
          WHERE ${inTenant(this.tenantId, 'i')}
        ) x JOIN vlans v ON v.id = x.vlan_id
        WHERE NOT ${vlanAvailableOn('v', { site: sql`x.site_id`, noun: h.noun })}
        ORDER BY x.numid, x.field LIMIT 1`.execute(this.tx);
      const r = rows[0];
      if (r) throw new NetBoxImportError(`${h.table} id ${this.netboxId(h.table, r.numid)}, field ${r.field}: VLAN ${r.vid} (${r.name}) is not available on the interface's ${h.noun}: an interface takes global VLANs or those of its ${h.noun}'s site (or of a VLAN group of that site or its region)`);
    }
  }

  private async finish(): Promise<void> {
    // Numbers given from now on follow the imported ones.
    for (const state of this.states) {
      const { rows } = await sql<{ n: string | null }>`SELECT max(numid) AS n FROM ${sql.table(state.model.table)} WHERE ${inTenant(this.tenantId)}`.execute(this.tx);
      const max = Number(rows[0]?.n ?? 0);
      if (max > 0) await raiseNumidCounter(this.tx, this.tenantId, state.model.table, max);
    }
    const touched = (t: string) => this.states.some((s) => s.table === t && (s.report.created || s.report.updated));
    if (touched('ipam_prefix') || touched('ipam_ipaddress') || touched('ipam_iprange')) {
      // Statistics of the rows just written (this transaction's own rows count): without them the planner took a
      // tenant of thousands of prefixes for 14 rows and chose plans for that size (issue 52's benchmark).
      await sql`ANALYZE prefixes, ip_addresses, ip_ranges`.execute(this.tx);
      await refreshTenantHierarchy(this.tx, this.tenantId);
      await refreshTenantUtilization(this.tx, this.tenantId);
    }
  }
}

/** A tenant made inside the caller's transaction, with what every new tenant starts with (its statuses…). */
async function createTenantIn(tx: Kysely<DB>, name: string, slug: string): Promise<string> {
  const model = requireModel('tenancy.tenant');
  const ctx = systemContext(null);
  const [row] = await insertRows(tx, ctx, model, [{ name, slug }]);
  await model.hooks.afterCreate?.({ tx, ctx, model, row: row! });
  return String(row!.id);
}

/** An error's message, or the first field message of a 400 (`{ field: [message] }`). */
function messageOf(err: unknown): string {
  const e = err as { message?: string; body?: unknown; details?: unknown };
  const body = (e.body ?? e.details) as Record<string, unknown> | undefined;
  if (body && typeof body === 'object') {
    const first = Object.values(body).find((v) => Array.isArray(v)) as string[] | undefined;
    if (first?.[0]) return first[0];
  }
  return e.message ?? String(err);
}

function labelOf(slug: string): string {
  return slug.replace(/[-_]+/g, ' ').replace(/^./, (c) => c.toUpperCase());
}

function hasValue(v: unknown): boolean {
  if (v === null || v === undefined || v === '' || v === false) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object' && !(v instanceof Date)) return Object.keys(v as object).length > 0;
  return true;
}

