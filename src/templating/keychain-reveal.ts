// The one way a keychain key leaves the database: an explicit call behind the reveal permission, written to the
// change log every time (action 'reveal'), so who read which key and when is on record.
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import { requireModel } from '../core/registry.ts';
import { ApiError } from '../core/errors.ts';
import { recordChanges } from '../core/changelog.ts';
import { inTransaction, loadScopedRow } from '../core/crud/write.ts';
import { decryptSecret } from '../core/secrets.ts';

export async function revealKeychainKey(db: Kysely<DB>, ctx: RequestContext, id: string): Promise<{ psk: string }> {
  const model = requireModel('routing.keychain');
  return inTransaction(db, async (tx) => {
    const row = await loadScopedRow(tx, ctx, model, id);
    const stored = row.key_secret;
    if (typeof stored !== 'string' || stored === '') throw new ApiError(400, { key: ['No key is set on this keychain.'] });
    let psk: string;
    try {
      psk = decryptSecret(stored);
    } catch {
      throw new ApiError(409, { detail: 'The key was stored with another secret key and cannot be read; set it again.' });
    }
    await recordChanges(tx, ctx, [{ model, action: 'reveal', objectId: String(row.id), repr: String(row.name), before: null, after: { revealed: 'psk' } }]);
    return { psk };
  });
}
