// Who may read the upgrade card from the maintenance responder. The responder has no database, so the web
// process, at the moment it gives the site up to an upgrade (hand-over or stop while the run holds the lock),
// writes the credentials that would pass GET /api/system/upgrade/ right now: the SHA-256 of every unexpired
// session and token of an active user with users.manage (or superuser), with their expiry. These are the same
// hashes the database stores, never the secrets. The snapshot names the lock it was taken under, so it is
// honoured only during that run; the next web process deletes it once it listens. While the database is down
// nobody can sign in, sign out or revoke anything, so a snapshot taken as it goes down is exactly current.
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { readLock, type LockInfo } from '../install/lock.ts';
import type { InstallLayout } from '../install/layout.ts';

const SESSION_COOKIE = 'cairn_session';

interface Credential {
  hash: string;
  /** ISO time, or null for a token that never expires. */
  expires: string | null;
}

export interface AdminSnapshot {
  /** The upgrade lock this was taken under (its acquiredAt and pid): a snapshot of another run is ignored. */
  lock: { acquiredAt: string; pid: number };
  taken: string;
  sessions: Credential[];
  tokens: Credential[];
}

export function adminSnapshotFile(layout: InstallLayout): string {
  return join(layout.runDir, 'responder-admins.json');
}

const isAdmin = sql<boolean>`(u.is_superuser OR EXISTS (
  SELECT 1 FROM user_groups ug JOIN group_permissions gp ON gp.group_id = ug.group_id
  WHERE ug.user_id = u.id AND gp.permission::text = 'users.manage'))`;

/** Writes the snapshot when an upgrade holds the lock; returns whether it did. */
export async function writeAdminSnapshot(db: Kysely<DB>, layout: InstallLayout): Promise<boolean> {
  const lock = readLock(layout.lockFile);
  if (!lock) return false;
  const sessions = await sql<{ hash: string; expires: Date }>`
    SELECT s.id AS hash, s.expires FROM sessions s JOIN users u ON u.id = s.user_id
    WHERE u.is_active AND s.expires > now() AND ${isAdmin}`.execute(db);
  const tokens = await sql<{ hash: string; expires: Date | null }>`
    SELECT t.key_hash AS hash, t.expires FROM tokens t JOIN users u ON u.id = t.user_id
    WHERE u.is_active AND (t.expires IS NULL OR t.expires > now()) AND ${isAdmin}`.execute(db);
  const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
  const snapshot: AdminSnapshot = {
    lock: { acquiredAt: lock.acquiredAt, pid: lock.pid },
    taken: new Date().toISOString(),
    sessions: sessions.rows.map((r) => ({ hash: r.hash, expires: iso(r.expires) })),
    tokens: tokens.rows.map((r) => ({ hash: r.hash, expires: iso(r.expires) })),
  };
  const file = adminSnapshotFile(layout);
  mkdirSync(layout.runDir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(snapshot), { mode: 0o600 });
  renameSync(tmp, file);
  return true;
}

export function removeAdminSnapshot(layout: InstallLayout): void {
  rmSync(adminSnapshotFile(layout), { force: true });
}

/** The snapshot, when one exists and belongs to the run holding the lock now. */
export function currentAdminSnapshot(layout: InstallLayout, lock: LockInfo | null = readLock(layout.lockFile)): AdminSnapshot | null {
  if (!lock) return null;
  let snapshot: AdminSnapshot;
  try {
    snapshot = JSON.parse(readFileSync(adminSnapshotFile(layout), 'utf8')) as AdminSnapshot;
  } catch {
    return null;
  }
  if (snapshot.lock?.acquiredAt !== lock.acquiredAt || snapshot.lock.pid !== lock.pid) return null;
  return snapshot;
}

function sessionCookie(header: string | undefined): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i < 0 || part.slice(0, i).trim() !== SESSION_COOKIE) continue;
    try {
      return decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      return null;
    }
  }
  return null;
}

function valid(list: Credential[], secret: string, now: number): boolean {
  const hash = createHash('sha256').update(secret).digest('hex');
  return list.some((c) => c.hash === hash && (c.expires === null || Date.parse(c.expires) > now));
}

/**
 * Whether a request carries an admin's credentials from the snapshot: "Authorization: Token <key>" (as the API
 * takes it; a bad header is not an admin) or else the session cookie.
 */
export function isSnapshotAdmin(snapshot: AdminSnapshot | null, headers: { authorization?: string; cookie?: string }, now = Date.now()): boolean {
  if (!snapshot) return false;
  if (headers.authorization !== undefined) {
    const m = /^Token\s+(\S+)$/i.exec(headers.authorization);
    return m !== null && valid(snapshot.tokens, m[1]!, now);
  }
  const cookie = sessionCookie(headers.cookie);
  return cookie !== null && valid(snapshot.sessions, cookie, now);
}
