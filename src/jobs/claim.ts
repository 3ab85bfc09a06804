// Claiming queued work from the job table, for work whose only queue is its record (the search rebuild an
// upgrade asks for). One claimant wins even with several workers: the row is locked and skipped by the others.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';

/** Marks the oldest queued job of `kind` running and returns its id, or null when none waits. */
export async function claimQueuedJob(db: Kysely<DB>, kind: string): Promise<string | null> {
  const { rows } = await sql<{ id: string }>`
    UPDATE jobs SET status = 'running', started = now()
    WHERE id = (SELECT id FROM jobs WHERE kind = ${kind} AND status = 'queued' AND NOT cancel_requested ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING id`.execute(db);
  return rows[0]?.id ?? null;
}

/** The queued job of `kind`, if one waits: a second request joins it instead of queueing the same work twice. */
export async function queuedJobOf(db: Kysely<DB>, kind: string): Promise<string | null> {
  const { rows } = await sql<{ id: string }>`SELECT id FROM jobs WHERE kind = ${kind} AND status = 'queued' ORDER BY id LIMIT 1`.execute(db);
  return rows[0]?.id ?? null;
}
