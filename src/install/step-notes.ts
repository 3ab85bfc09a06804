// After-upgrade steps: what a person must do on the host after a release (a key to set, an extension to
// create), shipped per release in deploy/step-notes.json and compiled into the server.
//
// A step is pending when
//   - its release is not newer than the running one (a step for X also shows on X's pre-releases: someone
//     testing 1.2.0-rc.1 needs 1.2.0's host changes),
//   - it applies to this database backend,
//   - its completion detector, if any, does not say "done" (a detector that fails never hides a step),
//   - nobody acknowledged it, and
//   - it is not older than a fresh install's own release (that install was set up by the current steps).
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { sql, type Kysely } from 'kysely';
import type { Backend } from '../db/database.ts';
import type { DB } from '../db/types.ts';
import shipped from '../../deploy/step-notes.json' with { type: 'json' };
import { compareVersions, parseVersion } from './version.ts';

export type Detector = { env: string } | { extensions: string[] } | { file: string };

export interface StepNote {
  id: string;
  release: string;
  title: string;
  body: string;
  snippet: string;
  docs: string;
  backend?: Backend;
  detect?: Detector;
}

export class StepNotesError extends Error {}

export interface StepNotesScope {
  db: Kysely<DB>;
  version: string;
  backend: Backend;
  env?: NodeJS.ProcessEnv;
  /** Install root: relative `file` detectors are resolved under it. */
  root?: string | null;
  /** The steps to consider; the shipped ones by default (tests pass their own). */
  notes?: readonly StepNote[];
}

export interface PendingStep {
  id: string;
  release: string;
  title: string;
  body: string;
  snippet: string;
  docs: string;
  detectable: boolean;
}

export interface StepNotesStatus {
  version: string;
  pending: PendingStep[];
  acknowledged: { id: string; acknowledged_by: string; acknowledged_at: string }[];
  /** Steps their detector found done. */
  completed: string[];
}

const ID_RE = /^[0-9A-Za-z][0-9A-Za-z._-]{0,99}$/;

/** Checks the data file's shape once at load: a broken entry is a build error, not a blank card. */
export function parseStepNotes(data: unknown): StepNote[] {
  const list = (data as { steps?: unknown } | null)?.steps;
  if (!Array.isArray(list)) throw new StepNotesError('step notes: "steps" must be a list');
  const seen = new Set<string>();
  return list.map((raw: unknown, i) => {
    const n = raw as Partial<StepNote> & Record<string, unknown>;
    const where = `step notes[${i}]${typeof n?.id === 'string' ? ` (${n.id})` : ''}`;
    for (const key of ['id', 'release', 'title', 'body', 'snippet', 'docs'] as const) {
      if (typeof n?.[key] !== 'string' || !n[key]) throw new StepNotesError(`${where}: "${key}" must be a non-empty string`);
    }
    if (!ID_RE.test(n.id!)) throw new StepNotesError(`${where}: id may hold letters, digits, '.', '_' and '-' only (at most 100)`);
    if (seen.has(n.id!)) throw new StepNotesError(`${where}: id is used twice`);
    seen.add(n.id!);
    if (!parseVersion(n.release!)) throw new StepNotesError(`${where}: release ${JSON.stringify(n.release)} is not a version`);
    if (!/^https:\/\//.test(n.docs!)) throw new StepNotesError(`${where}: docs must be an https:// link`);
    if (n.backend !== undefined && n.backend !== 'postgres' && n.backend !== 'pglite') throw new StepNotesError(`${where}: backend must be postgres or pglite`);
    const d = n.detect as Record<string, unknown> | undefined;
    if (d !== undefined) {
      const ok =
        (Object.keys(d).length === 1 && typeof d.env === 'string') ||
        (Object.keys(d).length === 1 && typeof d.file === 'string') ||
        (Object.keys(d).length === 1 && Array.isArray(d.extensions) && d.extensions.every((e) => typeof e === 'string' && /^[a-z0-9_]+$/.test(e)));
      if (!ok) throw new StepNotesError(`${where}: detect must be {env}, {file} or {extensions: [...]}`);
    }
    const { id, release, title, body, snippet, docs, backend } = n as StepNote;
    return { id, release, title, body, snippet, docs, ...(backend ? { backend } : {}), ...(d ? { detect: d as Detector } : {}) };
  });
}

export const SHIPPED_STEP_NOTES: readonly StepNote[] = parseStepNotes(shipped);

/** The step's release is not newer than `version`, counting X's pre-releases as X. */
export function stepAppliesTo(release: string, version: string): boolean {
  if (compareVersions(release, version) <= 0) return true;
  const r = parseVersion(release)!;
  const v = parseVersion(version)!;
  return r.pre === null && v.pre !== null && r.major === v.major && r.minor === v.minor && r.patch === v.patch;
}

async function detectDone(scope: StepNotesScope, detect: Detector): Promise<boolean> {
  try {
    if ('env' in detect) return Boolean((scope.env ?? process.env)[detect.env]);
    if ('file' in detect) return existsSync(isAbsolute(detect.file) ? detect.file : resolve(scope.root ?? process.cwd(), detect.file));
    const { rows } = await sql<{ extname: string }>`SELECT extname FROM pg_extension WHERE extname IN (${sql.join(detect.extensions)})`.execute(scope.db);
    return detect.extensions.every((e) => rows.some((r) => r.extname === e));
  } catch {
    return false; // a broken detector must not hide a step someone still has to do
  }
}

/** The fresh-install baseline: set to the first version that reads the steps, once. */
async function baselineVersion(scope: StepNotesScope): Promise<string | null> {
  const { rows } = await sql<{ fresh_install: boolean; version: string | null }>`
    UPDATE upgrade_step_baseline SET version = COALESCE(version, ${scope.version}) WHERE id = 1
    RETURNING fresh_install, version`.execute(scope.db);
  const row = rows[0];
  return row?.fresh_install && row.version && parseVersion(row.version) ? row.version : null;
}

export async function stepNotesStatus(scope: StepNotesScope): Promise<StepNotesStatus> {
  const notes = scope.notes ?? SHIPPED_STEP_NOTES;
  const baseline = await baselineVersion(scope);
  const { rows: acks } = await sql<{ id: string; acknowledged_by: string; acknowledged_at: Date | string }>`
    SELECT id, acknowledged_by, acknowledged_at FROM upgrade_step_acks ORDER BY acknowledged_at, id`.execute(scope.db);
  const acked = new Set(acks.map((a) => a.id));
  const pending: PendingStep[] = [];
  const completed: string[] = [];
  for (const n of notes) {
    if (!stepAppliesTo(n.release, scope.version)) continue;
    if (n.backend && n.backend !== scope.backend) continue;
    if (acked.has(n.id)) continue;
    if (baseline && stepAppliesTo(n.release, baseline)) continue;
    if (n.detect && (await detectDone(scope, n.detect))) {
      completed.push(n.id);
      continue;
    }
    pending.push({ id: n.id, release: n.release, title: n.title, body: n.body, snippet: n.snippet, docs: n.docs, detectable: n.detect !== undefined });
  }
  return {
    version: scope.version,
    pending,
    acknowledged: acks.map((a) => ({ id: a.id, acknowledged_by: a.acknowledged_by, acknowledged_at: new Date(a.acknowledged_at).toISOString() })),
    completed,
  };
}

/**
 * Acknowledges the given ids, or every pending step with 'all'. Unknown ids are refused as a whole (nothing
 * is stored), naming them. Returns the ids newly acknowledged.
 */
export async function acknowledgeSteps(scope: StepNotesScope, which: readonly string[] | 'all', by: string): Promise<string[]> {
  const notes = scope.notes ?? SHIPPED_STEP_NOTES;
  let ids: string[];
  if (which === 'all') {
    ids = (await stepNotesStatus(scope)).pending.map((p) => p.id);
  } else {
    const known = new Set(notes.map((n) => n.id));
    const unknown = which.filter((id) => !known.has(id));
    if (unknown.length) throw new StepNotesError(`unknown after-upgrade step ${unknown.map((u) => JSON.stringify(u)).join(', ')}`);
    ids = [...new Set(which)];
  }
  if (ids.length === 0) return [];
  const { rows } = await sql<{ id: string }>`
    INSERT INTO upgrade_step_acks (id, acknowledged_by)
    SELECT unnest(${ids}::varchar[]), ${by}
    ON CONFLICT (id) DO NOTHING
    RETURNING id`.execute(scope.db);
  return rows.map((r) => r.id).sort();
}
