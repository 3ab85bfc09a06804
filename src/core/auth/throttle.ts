// Sign-in throttle: after a few failed sign-ins for one account, or many failed sign-ins or token checks from one
// address, the next attempts are answered 429 with a Retry-After that doubles with each further failure, up to
// MAX_BLOCK_SECONDS. Nothing locks for good: a block ends by itself, and the count starts again once an account or
// address has had no failure for FORGET_AFTER_SECONDS. A right password during a block is refused too (else the
// block would not slow a guesser down), and a successful sign-in clears the account's count.
//
// The counts live in the database (sign_in_failures), not in one process, so several `cairn serve` processes
// behind a load balancer throttle as one. An account's block is recorded in the change log as a change of the
// user (failed_sign_ins, sign_in_blocked_until, both shown on the user's page), where an administrator sees it.
// Valid tokens never reach this file: only a failed check costs a write.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';
import { ApiError } from '../errors.ts';
import { recordChanges, snapshot } from '../changelog.ts';
import { systemContext } from '../context.ts';
import { requireModel } from '../registry.ts';

/** The failure that starts a block, for an account; an address, which many users may share, gets more. */
export const ACCOUNT_FAILURES = 5;
export const ADDRESS_FAILURES = 20;
export const MAX_BLOCK_SECONDS = 900;
export const FORGET_AFTER_SECONDS = 900;

interface FailureState {
  failures: number;
  blocked_until: Date | null;
}

/** Seconds of the block the `failures`th failure starts: none before the allowance, then 1, 2, 4…, at most MAX_BLOCK_SECONDS. */
export function blockSeconds(failures: number, allowance: number): number {
  if (failures < allowance) return 0;
  return Math.min(MAX_BLOCK_SECONDS, 2 ** Math.min(failures - allowance, 20));
}

function tooMany(until: Date, what: string): ApiError {
  const seconds = Math.max(1, Math.ceil((until.getTime() - Date.now()) / 1000));
  return new ApiError(429, { detail: `Too many failed sign-ins ${what}: try again in ${seconds} s.` }, { 'Retry-After': String(seconds) });
}

function keyOfAccount(username: string): string {
  return `user:${username.toLowerCase()}`;
}

function keyOfAddress(address: string): string {
  return `addr:${address}`;
}

/** Refuses with 429 while the account or the address is blocked. */
export async function refuseWhileBlocked(db: Kysely<DB>, username: string, address: string): Promise<void> {
  const { rows } = await sql<{ key: string; blocked_until: Date }>`SELECT key, blocked_until FROM sign_in_failures
    WHERE key IN (${keyOfAccount(username)}, ${keyOfAddress(address)}) AND blocked_until > now() ORDER BY blocked_until DESC LIMIT 1`.execute(db);
  const row = rows[0];
  if (row) throw tooMany(row.blocked_until, row.key.startsWith('user:') ? 'for this account' : 'from your address');
}

/** Counts one failure for `key` (forgetting an old streak) and blocks it past `allowance`. */
async function countFailure(tx: Kysely<DB>, key: string, allowance: number): Promise<FailureState> {
  const { rows } = await sql<{ failures: number }>`INSERT INTO sign_in_failures AS f (key, failures, last_failure, blocked_until)
      VALUES (${key}, 1, now(), NULL)
    ON CONFLICT (key) DO UPDATE SET
      failures = CASE WHEN f.last_failure < now() - make_interval(secs => ${FORGET_AFTER_SECONDS}) THEN 1 ELSE f.failures + 1 END,
      last_failure = now()
    RETURNING failures`.execute(tx);
  const state = rows[0]!;
  const seconds = blockSeconds(state.failures, allowance);
  // Below the allowance no block starts (a block that ran out earlier is over).
  if (seconds === 0) return { failures: state.failures, blocked_until: null };
  const { rows: blocked } = await sql<{ blocked_until: Date }>`UPDATE sign_in_failures SET blocked_until = now() + make_interval(secs => ${seconds})
    WHERE key = ${key} RETURNING blocked_until`.execute(tx);
  return { failures: state.failures, blocked_until: blocked[0]!.blocked_until };
}

/**
 * A failed sign-in: counted for the username and the address. Throws 429 when this failure starts a block, else
 * returns so the caller answers 401 as usual. A username nobody has is counted and blocked alike, so the answers
 * do not tell which accounts exist.
 */
export async function recordFailedSignIn(db: Kysely<DB>, username: string, address: string, userId: string | null): Promise<void> {
  const blocked = await db.transaction().execute(async (tx) => {
    const byAddress = await countFailure(tx, keyOfAddress(address), ADDRESS_FAILURES);
    const byAccount = await countFailure(tx, keyOfAccount(username), ACCOUNT_FAILURES);
    const until = [byAccount.blocked_until, byAddress.blocked_until].filter((d): d is Date => d !== null).sort((a, b) => b.getTime() - a.getTime())[0];
    const refusal = until ? tooMany(until, byAccount.blocked_until ? 'for this account' : 'from your address') : null;
    if (!userId) return refusal;
    const model = requireModel('users.user');
    const { rows: before } = await sql<Record<string, unknown>>`SELECT * FROM users WHERE id = ${userId}`.execute(tx);
    const { rows: after } = await sql<Record<string, unknown>>`UPDATE users SET failed_sign_ins = ${byAccount.failures},
        sign_in_blocked_until = ${byAccount.blocked_until} WHERE id = ${userId} RETURNING *`.execute(tx);
    // The change log records the start of a block (not every failure), with the address it came from.
    if (byAccount.blocked_until && before[0] && after[0]) {
      await recordChanges(tx, systemContext(null, `sign-in throttle (${address})`), [
        { model, action: 'update', objectId: userId, repr: String(after[0].username), before: snapshot(model, before[0]), after: snapshot(model, after[0]), tenantId: null },
      ]);
    }
    return refusal;
  });
  if (blocked) throw blocked;
}

/** A successful sign-in clears the account's count (not the address's: others may be guessing from it). */
export async function clearFailedSignIns(db: Kysely<DB>, username: string, userId: string): Promise<void> {
  await sql`DELETE FROM sign_in_failures WHERE key = ${keyOfAccount(username)}`.execute(db);
  await sql`UPDATE users SET failed_sign_ins = 0, sign_in_blocked_until = NULL WHERE id = ${userId} AND failed_sign_ins <> 0`.execute(db);
}

/** A token that is not valid: counted for the address, 429 once the address is blocked. Valid tokens never come here. */
export async function recordFailedToken(db: Kysely<DB>, address: string): Promise<void> {
  const { rows } = await sql<{ blocked_until: Date }>`SELECT blocked_until FROM sign_in_failures WHERE key = ${keyOfAddress(address)} AND blocked_until > now()`.execute(db);
  if (rows[0]) throw tooMany(rows[0].blocked_until, 'from your address');
  const state = await countFailure(db, keyOfAddress(address), ADDRESS_FAILURES);
  if (state.blocked_until) throw tooMany(state.blocked_until, 'from your address');
}
