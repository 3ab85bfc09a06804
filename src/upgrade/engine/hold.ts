// The maintenance hold of the start step: maintenance on (15 minutes, so a dead engine cannot hold the site for
// ever) plus the hash of a one-time token; the resume call presents the token and the web process lets users in.
import { timingSafeEqual, createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';
import { setMaintenance } from '../../system/maintenance.ts';
import { deleteState, readState, writeState } from '../../core/state.ts';

const HOLD_KEY = 'upgrade_hold';
export const HOLD_MINUTES = 15;

/** `reads`: reads are answered while it holds (the site was kept readable through the upgrade): only changes wait. */
export async function holdSite(db: Kysely<DB>, tokenSha256: string, reads = false): Promise<void> {
  if (!/^[0-9a-f]{64}$/.test(tokenSha256)) throw new Error('--token-sha256 takes 64 hex digits');
  await writeState(db, HOLD_KEY, { token_sha256: tokenSha256, since: new Date().toISOString() });
  await setMaintenance(db, true, HOLD_MINUTES, 'upgrade', reads);
}

/** True (and the site open) when `token` matches the hold; false for any other token or no hold. */
export async function releaseHold(db: Kysely<DB>, token: string): Promise<boolean> {
  const want = (await readState<{ token_sha256?: string }>(db, HOLD_KEY))?.token_sha256;
  if (!want) return false;
  const got = createHash('sha256').update(token).digest();
  if (!timingSafeEqual(got, Buffer.from(want, 'hex'))) return false;
  await deleteState(db, HOLD_KEY);
  await setMaintenance(db, false);
  return true;
}
