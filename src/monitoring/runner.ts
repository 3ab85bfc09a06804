// The check runner: claims due assignments, runs their probes with bounded concurrency, and folds the results
// through the rise/fall state machine in one transaction per round. Claiming moves next_run forward under
// FOR UPDATE SKIP LOCKED, so any number of worker processes can share the work without running a check twice.
import { sql, type Kysely } from 'kysely';
import { tenantAs } from '../core/access.ts';
import type { DB } from '../db/types.ts';
import { clipText, recordTable } from '../core/records.ts';
import { runProbe, type ProbeResult } from './probes.ts';
import type { CheckState } from './service.ts';

const checkResults = recordTable('check_results', { numbered: true });
const checkEvents = recordTable('check_events', { numbered: true });

export interface AssignmentState {
  state: CheckState;
  consecutiveOk: number;
  consecutiveFail: number;
}

/**
 * Hysteresis: a success counts towards up (rise), a failure towards down (fall); reaching the threshold changes
 * the state. An `unknown` result proves nothing: counters and state stay as they were.
 */
export function foldResult(current: AssignmentState, result: CheckState, rise: number, fall: number): AssignmentState {
  if (result === 'up') {
    const ok = current.consecutiveOk + 1;
    return { state: current.state === 'up' || ok >= rise ? 'up' : current.state, consecutiveOk: ok, consecutiveFail: 0 };
  }
  if (result === 'down') {
    const fail = current.consecutiveFail + 1;
    return { state: current.state === 'down' || fail >= fall ? 'down' : current.state, consecutiveOk: 0, consecutiveFail: fail };
  }
  return current;
}

export type Probe = (kind: string, host: string, port: number, timeoutMs: number) => Promise<ProbeResult>;

export interface RunnerOptions {
  /** Probes in flight at once. */
  concurrency?: number;
  /** Assignments claimed per round. */
  batchSize?: number;
  /** Replaces the network probes (tests of the state machine without sockets). */
  probe?: Probe;
}

export interface RoundSummary {
  checked: number;
  changed: number;
  byStatus: Record<CheckState, number>;
}

interface Claimed {
  id: string;
  tenant: string;
  kind: string;
  port: number;
  timeout_ms: number;
  rise: number;
  fall: number;
  host: string;
  state: CheckState;
  consecutive_ok: number;
  consecutive_fail: number;
}

/** Runs `work` over `items` with at most `limit` in flight; results keep the input order. */
export async function mapLimited<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  });
  await Promise.all(lanes);
  return out;
}

export class CheckRunner {
  readonly concurrency: number;
  readonly batchSize: number;
  private readonly probe: Probe;

  constructor(
    private readonly db: Kysely<DB>,
    options: RunnerOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 100;
    this.batchSize = options.batchSize ?? 1000;
    this.probe = options.probe ?? runProbe;
  }

  /**
   * One round: claims up to batchSize assignments due at `at` (default now), runs them, records results, states
   * and events. `at` lets tests and benches drive the schedule without waiting for the real interval.
   */
  async runDue(at: Date = new Date()): Promise<RoundSummary> {
    const { rows: claimed } = await sql<Claimed>`
      WITH due AS (
        SELECT ca.id FROM check_assignments ca JOIN check_templates ct ON ct.id = ca.template_id
        WHERE ca.enabled AND ct.enabled AND (ca.next_run IS NULL OR ca.next_run <= ${at.toISOString()}::timestamptz)
        ORDER BY ca.next_run NULLS FIRST, ca.id LIMIT ${this.batchSize}
        FOR UPDATE OF ca SKIP LOCKED
      )
      UPDATE check_assignments ca SET next_run = ${at.toISOString()}::timestamptz + make_interval(secs => ct.interval_seconds)
      FROM due, check_templates ct, ip_addresses a
      WHERE ca.id = due.id AND ct.id = ca.template_id AND a.id = ca.ip_address_id
      RETURNING ca.id, ${tenantAs('ca')}, ct.kind, ct.port, ct.timeout_ms, ct.rise, ct.fall, host(a.address) AS host,
        ca.state, ca.consecutive_ok, ca.consecutive_fail`.execute(this.db);
    const summary: RoundSummary = { checked: claimed.length, changed: 0, byStatus: { up: 0, down: 0, unknown: 0 } };
    if (claimed.length === 0) return summary;
    const results = await mapLimited(claimed, this.concurrency, (c) =>
      this.probe(c.kind, c.host, c.port, c.timeout_ms).catch((err: unknown): ProbeResult => ({ status: 'unknown', latencyMs: null, detail: `Probe failed: ${String(err)}`.slice(0, 200) })),
    );
    const folded = claimed.map((c, i) => {
      const r = results[i]!;
      summary.byStatus[r.status]++;
      const next = foldResult({ state: c.state, consecutiveOk: c.consecutive_ok, consecutiveFail: c.consecutive_fail }, r.status, c.rise, c.fall);
      return { c, r, next, changed: next.state !== c.state };
    });
    const changes = folded.filter((f) => f.changed);
    summary.changed = changes.length;
    await this.db.transaction().execute(async (tx) => {
      await sql`UPDATE check_assignments ca SET state = x.state, consecutive_ok = x.ok, consecutive_fail = x.fail, last_result = x.result,
          last_latency_ms = x.latency, last_detail = left(x.detail, 200), last_checked = now(),
          last_change = CASE WHEN x.changed THEN now() ELSE ca.last_change END
        FROM unnest(${folded.map((f) => f.c.id)}::uuid[], ${folded.map((f) => f.next.state)}::text[], ${folded.map((f) => f.next.consecutiveOk)}::int[],
          ${folded.map((f) => f.next.consecutiveFail)}::int[], ${folded.map((f) => f.r.status)}::text[], ${folded.map((f) => f.r.latencyMs)}::float8[],
          ${folded.map((f) => f.r.detail)}::text[], ${folded.map((f) => f.changed)}::boolean[]) AS x(id, state, ok, fail, result, latency, detail, changed)
        WHERE ca.id = x.id`.execute(tx);
      for (const [tenant, group] of groupByTenant(folded)) {
        await checkResults.append(tx, tenant, group.map((f) => ({ assignment_id: f.c.id, status: f.r.status, latency_ms: f.r.latencyMs, detail: clipText(f.r.detail, 200) })), { returning: false });
      }
      for (const [tenant, group] of groupByTenant(changes)) {
        await checkEvents.append(tx, tenant, group.map((f) => ({ assignment_id: f.c.id, from_state: f.c.state, to_state: f.next.state, detail: clipText(f.r.detail, 200) })), { returning: false });
      }
    });
    return summary;
  }

  /** Rounds until nothing is due (a worker's job): returns how many checks ran. */
  async runUntilIdle(at?: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const round = await this.runDue(at);
      total += round.checked;
      if (round.checked < this.batchSize) return total;
    }
  }
}

function groupByTenant<T extends { c: { tenant: string } }>(items: T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const list = out.get(item.c.tenant) ?? [];
    list.push(item);
    out.set(item.c.tenant, list);
  }
  return out;
}

/** Bounded history: results older than `days` go. */
export async function pruneCheckResults(db: Kysely<DB>, days: number): Promise<number> {
  const { rows } = await sql<{ n: number }>`WITH gone AS (DELETE FROM check_results WHERE created < now() - make_interval(days => ${days}) RETURNING 1)
    SELECT count(*)::int AS n FROM gone`.execute(db);
  return rows[0]!.n;
}
