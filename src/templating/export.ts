// Rendering export templates over whole lists: the rows a list page would show (same tenant fence, permission
// and filters), fetched in chunks so memory stays flat, through row proxies so relations load once per chunk.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import type { ModelDef } from '../core/registry.ts';
import { callerTenant, requireModelPermission } from '../core/access.ts';
import { ApiError, badRequest, fieldError } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import { listConditions } from '../core/crud/read.ts';
import { keysetAfter, keysetColumnNames, keysetColumns } from '../core/crud/keyset.ts';
import { loadScopedRow } from '../core/crud/write.ts';
import type { OrderKey, QueryValues } from '../core/crud/list-query.ts';
import type { Row } from '../core/crud/serialize.ts';
import { TEMPLATE_OBJECT, TemplateError, UNDEFINED, type ItemReads, type RenderOptions, type Template, type TemplateObject } from './engine/index.ts';
import { describeTemplateError, templateEnvironment } from './environment.ts';
import { RecordPlan, RenderSession, RowGroup } from './proxies.ts';
import { checkSubjectType } from './subjects.ts';
import { RenderBudget } from './render-budget.ts';
import { planPushdown, type PushdownPlan } from './pushdown.ts';
import { pushdownStream, type PushdownChunk } from './pushdown-stream.ts';
import { exportTemplateModel } from './models.ts';

/** Tunables; an object so tests can lower the cap without inserting 50,001 rows. */
export const exportLimits = {
  /** Rows one render may take (SPEC Limits); beyond, the render is refused with the count. */
  maxRows: 50_000,
  /** Rows a preview renders; `count` still states the real total. */
  previewRows: 200,
  /** Rows fetched and proxied at a time: relations load once per chunk. */
  chunkRows: 5000,
  /** Rows a render PostgreSQL writes (pushdown.ts) reads at a time: text only, so more of them. */
  pushdownChunkRows: 25_000,
};

/** Query parameters of a render that are not list filters. */
const RENDER_PARAMS: ReadonlySet<string> = new Set(['export']);

/** Inert types served as declared; anything else (text/html included) is served as text/plain. */
const INERT_TYPES = new Set([
  'text/plain',
  'text/csv',
  'text/tab-separated-values',
  'text/markdown',
  'application/json',
  'application/xml',
  'text/xml',
  'application/yaml',
  'application/x-yaml',
  'text/yaml',
  'text/x-yaml',
]);

export function safeMimeType(declared: unknown): string {
  const base = typeof declared === 'string' ? declared.split(';')[0]!.trim().toLowerCase() : '';
  return INERT_TYPES.has(base) ? base : 'text/plain';
}

/** `attachment; filename="…"` with quotes escaped, plus an RFC 5987 form for names beyond ASCII. */
export function contentDisposition(template: Row): string {
  const ext = String(template.file_extension || 'txt').replace(/^\./, '');
  const file = `${String(template.name)}.${ext}`;
  const ascii = file.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, (c) => `\\${c}`);
  const kind = template.as_attachment === false ? 'inline' : 'attachment';
  const extended = /[^\x20-\x7e]/.test(file) ? `; filename*=UTF-8''${encodeURIComponent(file)}` : '';
  return `${kind}; filename="${ascii}"${extended}`;
}

export function renderHeaders(template: Row): Record<string, string> {
  return {
    'content-type': `${safeMimeType(template.mime_type)}; charset=utf-8`,
    'x-content-type-options': 'nosniff',
    'content-security-policy': "sandbox; default-src 'none'",
    'content-disposition': contentDisposition(template),
  };
}

/** A render refused or failed because of the template: 400 with the message and its line. */
export function templateFailure(err: TemplateError): ApiError {
  return new ApiError(400, { detail: describeTemplateError(err), ...(err.lineno !== undefined ? { line: err.lineno } : {}), kind: err.kind });
}

/**
 * `objects` of a list render: iterates the rows chunk by chunk, so a 50,000-row render holds one chunk of rows and
 * their loaded relations at a time. The first chunk comes with the list. In the list's default ordering each later
 * chunk is read after the last row of the one before (KeysetChunks); in another, by id from the list's ids, read
 * while the first chunk renders. Random access (`objects[-1]`) and the length read the ids too.
 */
class ObjectList implements TemplateObject {
  readonly [TEMPLATE_OBJECT] = true as const;
  private lastGroup: { start: number; group: Promise<RowGroup> } | null;
  /** The chunk read after a chunk by keyset (see KeysetChunks), the last one asked for. */
  private lastAfter: { previous: RowGroup; group: Promise<RowGroup> } | null = null;
  /** Every id in list order, once known (the first chunk's alone when it holds the whole list). */
  private ids: readonly string[] | null = null;
  private idsPromise: Promise<readonly string[]> | null = null;

  constructor(
    private readonly session: RenderSession,
    private readonly model: ModelDef,
    private readonly head: RowGroup,
    private readonly readIds: () => Promise<readonly string[]>,
    /** The count read with the first chunk: the length until the ids arrive. */
    private readonly total: number,
    /** How chunks after the first are read in order; null: by the list's ids. */
    private readonly keyset: KeysetChunks | null,
  ) {
    this.lastGroup = { start: 0, group: Promise.resolve(head) };
    // Read by id, every chunk but the first needs the ids: they are read while the first chunk renders.
    if (!keyset) void this.idsReady();
  }

  /** The ids of the whole list, read on first need (random access, the length, or chunks read by id). */
  private idsReady(): Promise<readonly string[]> {
    if (!this.idsPromise) {
      this.idsPromise = this.readIds().then((all) => (this.ids = all));
      // Awaited where a chunk beyond the first or the length is needed; a failure surfaces there.
      this.idsPromise.catch(() => undefined);
    }
    return this.idsPromise;
  }

  private chunk(start: number): Promise<RowGroup> {
    if (this.lastGroup?.start === start) return this.lastGroup.group;
    const group = this.fetchChunk(start);
    // Fetched ahead while the previous chunk renders; a failure surfaces when the render reaches this chunk.
    group.catch(() => undefined);
    this.lastGroup = { start, group };
    return group;
  }

  private async fetchChunk(start: number): Promise<RowGroup> {
    // The ids go as one text parameter: pg escapes an array parameter element by element, a measured fifth of
    // the client's work for these queries (ids come from the database, so they hold no commas). Each id is looked
    // up by primary key (the lateral subquery, kept apart by OFFSET 0, cannot become a join): as `t.id = ANY(…)`
    // PostgreSQL chose a scan of the whole tenant's rows per chunk, filtering out nine tenths of them, whenever its
    // statistics were behind (as after a bulk load). The rows come back in list order.
    const ids = (this.ids ?? (await this.idsReady())).slice(start, start + exportLimits.chunkRows);
    const narrow = this.session.narrowSelect(this.model, 't');
    const { rows } = await sql<Row>`SELECT ${narrow ?? this.session.selectList(this.model.table, 't')}${this.session.inlineSelect(this.model, 't')}
      FROM unnest(string_to_array(${ids.join(',')}, ',')::uuid[]) WITH ORDINALITY AS k(id, n)
      CROSS JOIN LATERAL (SELECT * FROM ${sql.table(this.model.table)} t WHERE t.id = k.id AND ${fenceOf(this.session.ctx, this.model)} OFFSET 0) t
      ORDER BY k.n`.execute(this.session.db);
    // A row deleted since the list was read is left out, as a list page read a moment later would.
    return new RowGroup(this.session, this.model, rows, narrow === null);
  }

  getAttr(): unknown {
    return UNDEFINED;
  }

  async getItem(key: unknown): Promise<unknown> {
    if (typeof key !== 'number' || !Number.isInteger(key)) return UNDEFINED;
    // Within the first chunk no ids are needed; from the end, or beyond it, they are.
    const inHead = key >= 0 && key < this.head.proxies.length;
    const ids = this.ids ?? (inHead ? null : await this.idsReady());
    if (!ids) return this.head.proxies[key];
    const i = key < 0 ? ids.length + key : key;
    if (i < 0 || i >= ids.length) return UNDEFINED;
    const start = i - (i % exportLimits.chunkRows);
    const group = await this.chunk(start);
    // In place unless rows of the chunk were deleted since the ids were read (a slice asks for many in a row).
    const direct = group.proxies[i - start];
    if (direct && String(direct.row.id) === ids[i]) return direct;
    return group.proxies.find((p) => String(p.row.id) === ids[i]) ?? UNDEFINED;
  }

  iterate(): AsyncIterable<unknown> {
    return { [Symbol.asyncIterator]: () => new ChunkCursor(this) };
  }

  /** Plans of the loops over this list that only read attributes, by their reads (one per loop of the template). */
  private readonly plans = new Map<ItemReads, RecordPlan | null>();

  /**
   * The rows a chunk at a time: a `for` over `objects` renders each chunk as a list (one await per chunk). A loop
   * that only reads attributes of its rows gets them as plain records (see RecordPlan).
   */
  iterateBatches(reads: ItemReads | null): AsyncIterator<readonly unknown[]> {
    let plan: RecordPlan | null = null;
    if (reads !== null) {
      plan = this.plans.get(reads) ?? null;
      if (!this.plans.has(reads)) this.plans.set(reads, (plan = RecordPlan.of(this.model, reads)));
    }
    return new BatchCursor(this, plan);
  }

  /**
   * The chunk at `start` and the loads the previous chunk walked started on it (see ChunkCursor); null past the
   * end of the list.
   */
  async enter(start: number, previous: RowGroup | null): Promise<RowGroup | null> {
    if (this.keyset) return this.enterAfter(this.keyset, start, previous);
    // The first chunk renders without waiting for the ids; past it, they say where the list ends.
    const ids = start === 0 ? this.ids : (this.ids ?? (await this.idsReady()));
    if (ids && start >= ids.length) return null;
    const group = await this.chunk(start);
    // The relations the previous chunk walked are started now for this one, all at once.
    previous?.warm(group);
    // Warmed twice on purpose: when its rows arrive (overlapping this chunk's render) and when it starts
    // (catching relations this chunk touched late); a load already started is not started again.
    const next = start + exportLimits.chunkRows;
    void this.idsReady().then((all) => {
      if (next < all.length) return this.chunk(next).then((g) => group.warm(g));
    }).catch(() => undefined);
    return group;
  }

  /**
   * enter() for a list read by keyset: the chunk at `start` is the one after `previous` (the cursor walks the list in
   * order). A chunk short of a whole one ends the list, as does the row cap. The chunk after it is read at once.
   */
  private async enterAfter(keyset: KeysetChunks, start: number, previous: RowGroup | null): Promise<RowGroup | null> {
    let group = this.head;
    if (start > 0) {
      if (!previous || previous.proxies.length < exportLimits.chunkRows || start >= keyset.cap) return null;
      group = await this.chunkAfter(keyset, previous, start);
    }
    if (!group.proxies.length) return null;
    previous?.warm(group);
    const next = start + exportLimits.chunkRows;
    if (group.proxies.length === exportLimits.chunkRows && next < keyset.cap) {
      void this.chunkAfter(keyset, group, next).then((g) => group.warm(g)).catch(() => undefined);
    }
    return group;
  }

  private chunkAfter(keyset: KeysetChunks, previous: RowGroup, start: number): Promise<RowGroup> {
    if (this.lastAfter?.previous === previous) return this.lastAfter.group;
    const last = previous.proxies[previous.proxies.length - 1]!.row;
    const group = keyset.read(last, Math.min(exportLimits.chunkRows, keyset.cap - start));
    // Read ahead while the previous chunk renders; a failure surfaces when the render reaches this chunk.
    group.catch(() => undefined);
    this.lastAfter = { previous, group };
    return group;
  }

  length(): number | Promise<number> {
    return this.ids ? this.ids.length : this.idsReady().then((ids) => ids.length);
  }

  truthy(): boolean {
    return this.head.proxies.length > 0;
  }

  toTemplateString(): string {
    return `<${this.ids?.length ?? this.total} ${this.model.labelPlural}>`;
  }

  typeName(): string {
    return `list of ${this.model.labelPlural}`;
  }
}

/**
 * Chunks of a list read in order by keyset (core/crud/keyset.ts): each continues after the last row of the one
 * before, off the ordering's index, with no list of ids to read first and no row looked up by id.
 */
interface KeysetChunks {
  /** Rows the render may take in all (the row cap). */
  cap: number;
  /** Up to `limit` rows after `row`, in list order. */
  read(row: Row, limit: number): Promise<RowGroup>;
}

/**
 * Walks an ObjectList row by row. Written out rather than as an async generator: the engine pulls one item per
 * iteration, and a generator's resume per row (50,000 in a full render) cost more than handing back an
 * already-resolved result for every row of a loaded chunk.
 */
class ChunkCursor implements AsyncIterator<unknown> {
  private group: RowGroup | null = null;
  private start = 0;
  private index = 0;
  private finished = false;

  constructor(private readonly list: ObjectList) {}

  next(): Promise<IteratorResult<unknown>> {
    const group = this.group;
    if (group && this.index < group.proxies.length) return Promise.resolve({ value: group.proxies[this.index++], done: false });
    return this.advance();
  }

  private async advance(): Promise<IteratorResult<unknown>> {
    for (;;) {
      if (this.finished) return { value: undefined, done: true };
      if (this.group) this.start += exportLimits.chunkRows;
      const group = await this.list.enter(this.start, this.group);
      if (!group) return this.return();
      this.group = group;
      this.index = 0;
      if (group.proxies.length) return { value: group.proxies[this.index++], done: false };
    }
  }

  return(): Promise<IteratorResult<unknown>> {
    this.finished = true;
    this.group = null;
    return Promise.resolve({ value: undefined, done: true });
  }
}

/** Walks an ObjectList a chunk at a time, each chunk's row proxies as one batch. */
class BatchCursor implements AsyncIterator<readonly unknown[]> {
  private group: RowGroup | null = null;
  private start = 0;
  private finished = false;

  constructor(
    private readonly list: ObjectList,
    private readonly plan: RecordPlan | null,
  ) {}

  async next(): Promise<IteratorResult<readonly unknown[]>> {
    if (this.finished) return { value: undefined, done: true };
    if (this.group) this.start += exportLimits.chunkRows;
    const group = await this.list.enter(this.start, this.group);
    if (!group) return this.return();
    this.group = group;
    const records = this.plan ? await group.records(this.plan) : null;
    return { value: records ?? group.proxies, done: false };
  }

  return(): Promise<IteratorResult<readonly unknown[]>> {
    this.finished = true;
    this.group = null;
    return Promise.resolve({ value: undefined, done: true });
  }
}

/** The tenant fence, plus: the tenant type covers only the tenant the render runs in. */
function fenceOf(ctx: RequestContext, model: ModelDef, alias = 't'): RawBuilder<unknown> {
  const base = listConditions(ctx, model, {}, alias).where;
  if (model.name === 'tenancy.tenant') return ctx.tenantId ? sql`${base} AND ${sql.ref(`${alias}.id`)} = ${ctx.tenantId}` : sql`false`;
  return base;
}

export interface PreparedRender {
  template: Template;
  context: Record<string, unknown>;
  count: number;
  rendered: number;
  /** The whole render, a piece at a time: by PostgreSQL when the template allows it (pushdown.ts), else the engine. */
  stream(opts: RenderOptions): AsyncIterable<string>;
}

export interface RenderRequest {
  objectType: string;
  templateCode: string;
  query: QueryValues;
  preview: boolean;
  /** Rendered by the engine whatever the template (a pushed-down render's fallback for a chunk). */
  engineOnly?: boolean;
}

/**
 * Checks the subject type and the caller's view permission, compiles, counts the rows and reads the first chunk,
 * and refuses a render beyond the row cap before anything is rendered.
 */
export async function prepareListRender(db: Kysely<DB>, ctx: RequestContext, req: RenderRequest): Promise<PreparedRender> {
  const subject = checkSubjectType(req.objectType);
  if (!subject.ok) throw fieldError('object_type', subject.message);
  const model = subject.model;
  requireModelPermission(ctx, model, 'view');
  let template: Template;
  try {
    template = templateEnvironment().compile(req.templateCode, 'template_code');
  } catch (err) {
    if (err instanceof TemplateError) throw fieldError('template_code', describeTemplateError(err));
    throw err;
  }
  const { where, orderBy, orderKeys } = listConditions(ctx, model, req.query, 't', RENDER_PARAMS);
  const fence = model.name === 'tenancy.tenant' ? (ctx.tenantId ? sql`t.id = ${ctx.tenantId}` : sql`false`) : sql`true`;
  // A whole export in the list's default ordering, by PostgreSQL when the template is simple enough (pushdown.ts).
  // An `id` filter of the caller's own is left to the engine: the fallback narrows a chunk by ids.
  const plan = !req.preview && !req.engineOnly && orderKeys && req.query.ordering === undefined && req.query.id === undefined ? planPushdown(ctx, model, template.statements()) : null;
  if (plan && orderKeys) return preparePushdown(db, ctx, req, { model, template, plan, rows: sql`${sql.table(model.table)} t WHERE ${where} AND ${fence}`, orderBy, orderKeys });
  const session = new RenderSession(db, ctx);
  await session.prepare();
  session.useReads(template.reads());
  session.expectReads(model, template.reads());
  const headSelect = session.narrowSelect(model, 't');
  const cap = req.preview ? exportLimits.previewRows : exportLimits.maxRows;
  const from = sql`${sql.table(model.table)} t WHERE ${where} AND ${fence}`;
  const headRows = Math.min(exportLimits.chunkRows, cap);
  // In the list's default ordering, which an index serves (test/fk-indexes.test.ts), the chunks are read by keyset,
  // each after the last row of the one before. Another ordering may have no index: each chunk would sort the whole
  // list again, so its ids are read once, in order, and the chunks by id.
  const keys = req.query.ordering === undefined ? orderKeys : null;
  const carried = (column: string) => session.carriesText(model, column);
  /** Up to `limit` rows in list order, after `after` when given, with `narrow`'s columns (null: whole rows). */
  const keysetQuery = (keys: readonly OrderKey[], narrow: RawBuilder<unknown> | null, after: Row | null, limit: number) =>
    sql<Row>`SELECT ${narrow ?? session.selectList(model.table, 't')}${session.inlineSelect(model, 't')}${keysetColumns(keys, 't', carried)}
      FROM ${from}${after ? sql` AND ${keysetAfter(keys, after, 't')}` : sql``} ORDER BY ${orderBy} LIMIT ${limit}`.execute(db);
  // At once (on PostgreSQL, on separate connections): the first chunk's rows in list order, so rendering starts
  // with them; the count, to refuse a render beyond the cap before anything renders; read by id, once the count
  // allows, the ordered ids of the whole list, which arrive while the first chunk renders (none are needed when it
  // holds the whole list). Read by id, the first chunk orders ids and joins the rows afterwards: whole rows sorted
  // made PostgreSQL sort 50,000 of them on disk to hand back 5,000.
  const headQuery = keys
    ? keysetQuery(keys, headSelect, null, headRows)
    : sql<Row>`SELECT ${headSelect ?? session.selectList(model.table, 't')}${session.inlineSelect(model, 't')}
      FROM unnest(ARRAY(SELECT t.id FROM ${from} ORDER BY ${orderBy} LIMIT ${headRows})) WITH ORDINALITY AS k(id, n)
      JOIN ${sql.table(model.table)} t ON t.id = k.id ORDER BY k.n`.execute(db);
  // Settled here so a refused render leaves no unhandled rejection behind; awaited below.
  headQuery.catch(() => undefined);
  const total = await countRows(db, from);
  if (!req.preview && total > cap) throw tooManyRows(model, total, cap);
  const idsQuery = () => sql<{ id: string }>`SELECT t.id FROM ${from} ORDER BY ${orderBy} LIMIT ${cap}`.execute(db);
  const allIds = !keys && total > headRows && headRows < cap ? idsQuery() : null;
  allIds?.catch(() => undefined);
  const { rows: head } = await headQuery;
  const headIds: string[] = new Array<string>(head.length);
  for (let i = 0; i < head.length; i++) headIds[i] = String(head[i]!.id);
  // A first chunk shorter than a chunk is the whole list, whatever the count said a moment before.
  const whole = head.length < headRows || headRows >= cap || (!keys && !allIds);
  const readIds = (): Promise<readonly string[]> =>
    whole ? Promise.resolve(headIds) : (allIds ?? idsQuery()).then(({ rows }) => continueAfter(headIds, rows, cap));
  const keyset: KeysetChunks | null = keys && {
    cap,
    async read(after, limit) {
      const narrow = session.narrowSelect(model, 't');
      const { rows } = await keysetQuery(keys, narrow, after, limit);
      return new RowGroup(session, model, rows, narrow === null);
    },
  };
  const objects = new ObjectList(session, model, new RowGroup(session, model, head, headSelect === null), readIds, total, keyset);
  const context = { objects, queryset: objects, count: total };
  return { template, context, count: total, rendered: head.length, stream: (opts) => template.renderStream(context, opts) };
}

/** About the most text one chunk of a pushed-down render holds, from its body's plain text alone. */
const PUSHDOWN_CHUNK_BYTES = 8 * 1024 * 1024;

interface PushdownParts {
  model: ModelDef;
  template: Template;
  plan: PushdownPlan;
  /** `<table> t WHERE …`: the list's rows. */
  rows: RawBuilder<unknown>;
  orderBy: RawBuilder<unknown>;
  orderKeys: readonly OrderKey[];
}

/** A render PostgreSQL writes: the count against the cap first, then chunks read by keyset as the client takes them. */
async function preparePushdown(db: Kysely<DB>, ctx: RequestContext, req: RenderRequest, p: PushdownParts): Promise<PreparedRender> {
  const { plan, orderKeys: keys } = p;
  // A body with much plain text per row gets fewer rows a chunk: a chunk is held whole before the budget counts
  // it, where the engine writes 16 KB at a time.
  const chunkRows = Math.max(1, Math.min(exportLimits.pushdownChunkRows, Math.floor(PUSHDOWN_CHUNK_BYTES / (plan.bodyTextBytes + 64))));
  // The next chunk starts after the last row's id and ordering keys, read back under these names.
  const lastKeys = ['id', ...keysetColumnNames(keys)];
  const read = async (after: Row | null, limit: number): Promise<PushdownChunk> => {
    // The chunk's rows off the ordering's index, then their related rows (for those rows only), back in list order;
    // PostgreSQL joins their text into one value, as it aggregates them in that order, and keeps the last row's keys
    // (the same array_agg, read once) for the next chunk, and the ids only when a row needs the engine.
    const ids = sql`array_agg(s.id)`;
    const lastOf = (column: string) => sql`(${column === 'id' ? ids : sql`array_agg(${sql.ref(`s.${column}`)})`})[count(*)] AS ${sql.ref(column)}`;
    const { rows } = await sql<{ text: string | null; count: number; inexact_ids: string[] | null } & Row>`
      SELECT coalesce(string_agg(s.line, ''), '') AS text, count(*)::int AS count, ${sql.join(lastKeys.map(lastOf))},
        CASE WHEN bool_and(s.exact) THEN NULL ELSE ${ids} END AS inexact_ids
      FROM (SELECT t.id${keysetColumns(keys, 't')}, ${plan.line} AS line, ${plan.exact} AS exact
        FROM (SELECT t.* FROM ${p.rows}${after ? sql` AND ${keysetAfter(keys, after, 't')}` : sql``} ORDER BY ${p.orderBy} LIMIT ${limit}) t
        ${plan.joins} ORDER BY ${p.orderBy}) s`.execute(db);
    const r = rows[0]!;
    const last: Row | null = r.count ? Object.fromEntries(lastKeys.map((k) => [k, r[k]])) : null;
    return { text: r.text ?? '', count: r.count, last, inexactIds: r.inexact_ids };
  };
  // The first chunk is read beside the count (on PostgreSQL, on another connection); dropped if the count refuses.
  const first = read(null, Math.min(chunkRows, exportLimits.maxRows));
  first.catch(() => undefined);
  const total = await countRows(db, p.rows);
  if (total > exportLimits.maxRows) throw tooManyRows(p.model, total, exportLimits.maxRows);
  const stream = (opts: RenderOptions) =>
    pushdownStream(
      {
        before: plan.before,
        after: plan.after,
        chunkRows,
        cap: exportLimits.maxRows,
        read,
        first,
        async renderByEngine(ids) {
          // The same template over these rows: its text around the loop is plain, so the loop's part is what lies between.
          const sub = await prepareListRender(db, ctx, { ...req, query: { ...req.query, id: ids }, engineOnly: true });
          const out = await sub.template.render(sub.context, opts);
          if (!out.startsWith(plan.before) || !out.endsWith(plan.after)) throw new Error('pushdown fallback: the engine wrote other text around the loop');
          return out.slice(plan.before.length, out.length - plan.after.length);
        },
      },
      opts,
    );
  return { template: p.template, context: {}, count: total, rendered: total, stream };
}

/** A render refused for its row count, before anything renders. */
function tooManyRows(model: ModelDef, total: number, cap: number): ApiError {
  return badRequest(
    `${total} ${model.labelPlural} is more than one render can take (${cap.toLocaleString('en-US')}). Narrow the rows with list filters, or use a template on a narrower type.`,
  );
}

async function countRows(db: Kysely<DB>, from: RawBuilder<unknown>): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${from}`.execute(db);
  return rows[0]?.n ?? 0;
}

/**
 * The ids of the whole list: the first chunk's, then those the ids query lists after the first chunk's last row.
 * The two reads are separate, and a row written between them can shift the list: continuing after the last row
 * rendered keeps each row once and in order (a row that moved in before it is left out, as if written later).
 * When that row is gone, the list continues after the last first-chunk row the ids still hold.
 */
export function continueAfter(headIds: readonly string[], rows: ReadonlyArray<{ id: string }>, cap: number): string[] {
  const n = headIds.length;
  // Usually the ids start with the first chunk exactly: then no first-chunk row can come again after it.
  let same = rows.length >= n;
  for (let i = 0; same && i < n; i++) same = rows[i]!.id === headIds[i];
  if (same) {
    const out = headIds.slice();
    for (let i = n; i < rows.length && out.length < cap; i++) out.push(rows[i]!.id);
    return out;
  }
  const last = headIds[headIds.length - 1];
  let at = rows.findIndex((r) => r.id === last);
  const inHead = new Set(headIds);
  if (at === -1) for (let i = rows.length - 1; i >= 0 && at === -1; i--) if (inHead.has(rows[i]!.id)) at = i;
  const out = [...headIds];
  for (let i = at + 1; i < rows.length && out.length < cap; i++) if (!inHead.has(rows[i]!.id)) out.push(rows[i]!.id);
  return out;
}

/** Loads a stored template inside the caller's tenant (another tenant's id is a 404) after the view check. */
export async function loadExportTemplate(db: Kysely<DB>, ctx: RequestContext, id: string): Promise<Row> {
  requireModelPermission(ctx, exportTemplateModel, 'view');
  return loadScopedRow(db, ctx, exportTemplateModel, id);
}

/** `?export=<name or id>` on a list: the template of that list's type, by id or by name. */
export async function findExportTemplate(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, ref: string): Promise<Row> {
  requireModelPermission(ctx, exportTemplateModel, 'view');
  const byId = isUuid(ref) ? sql`t.id = ${ref.toLowerCase()}` : sql`false`;
  const { rows } = await sql<Row>`SELECT t.* FROM export_templates t
    WHERE ${callerTenant(ctx, 't')} AND (${byId} OR t.name = ${ref}) ORDER BY (t.name = ${ref}) LIMIT 1`.execute(db);
  const row = rows[0];
  if (!row) throw fieldError('export', `No export template "${ref.slice(0, 128)}" exists.`);
  if (row.object_type !== model.name) throw fieldError('export', `"${String(row.name)}" is a template for ${String(row.object_type)}, not ${model.name}.`);
  return row;
}

/** Renders a preview: the first rows, the output as one string, and the real total. */
export async function renderPreview(db: Kysely<DB>, ctx: RequestContext, objectType: string, templateCode: string, query: QueryValues): Promise<{ output: string; count: number; truncated: boolean }> {
  const prepared = await prepareListRender(db, ctx, { objectType, templateCode, query, preview: true });
  try {
    const output = await prepared.template.render(prepared.context, new RenderBudget().renderOptions());
    return { output, count: prepared.count, truncated: prepared.count > prepared.rendered };
  } catch (err) {
    if (err instanceof TemplateError) throw templateFailure(err);
    throw err;
  }
}
