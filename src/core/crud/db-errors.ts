// Database errors a client could have avoided → 4xx answers naming the field. Anything else stays a 500.
import { ApiError, badRequest, conflict } from '../errors.ts';
import { isStalePlan } from '../../db/statement-names.ts';
import { allModels } from '../registry.ts';

interface PgError {
  code?: string;
  detail?: string;
  constraint?: string;
  column?: string;
  table?: string;
  message?: string;
}

export function translateDbError(err: unknown): unknown {
  if (err instanceof ApiError || typeof err !== 'object' || err === null) return err;
  const e = err as PgError;
  switch (e.code) {
    case '23505': {
      // Key (tenant_id, name)=(…, x) already exists.
      const m = /Key \(([^)]+)\)=\((.*)\) already exists/.exec(e.detail ?? '');
      const columns = m ? m[1]!.split(',').map((c) => c.trim()).filter((c) => c !== 'tenant_id') : [];
      const field = (columns[columns.length - 1] ?? 'non_field_errors').replace(/_id$/, '');
      // Named as the user knows the row: "A device with this name already exists."
      const label = (e.table && allModels().find((m) => m.table === e.table)?.label) || 'object';
      const article = /^[aeiou]/i.test(label) ? 'An' : 'A';
      const words = columns.map((c) => c.replace(/_id$/, '').replace(/_/g, ' ')).join(' and ');
      const msg = columns.length ? `${article} ${label} with this ${words} already exists.` : `This ${label} already exists.`;
      return badRequest({ [field]: [msg] });
    }
    case '23503':
      return conflict(e.detail?.includes('is still referenced') ? 'This object is still referenced by other objects.' : 'A related object does not exist.');
    case '23502':
      return badRequest({ [e.column ?? 'non_field_errors']: ['This field may not be null.'] });
    case '23514':
    case '23P01':
      return badRequest({ non_field_errors: [`The values break the rule ${e.constraint ?? ''}.`.replace(' .', '.')] });
    case '22P02':
    case '22007':
    case '22008':
    case '22003':
    case '22001':
      return badRequest({ non_field_errors: [e.message ?? 'Invalid value.'] });
    default:
      return err;
  }
}

/**
 * Errors that mean the database is gone or too busy (not that the request was wrong): answered 503 with
 * Retry-After, not 500. 57014 is a statement cancelled by the statement timeout; "timeout exceeded when trying
 * to connect" is a request that waited the pool's wait (src/db/database.ts) for a free connection.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (e.code && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '57014', '08000', '08003', '08006', '53300'].includes(e.code)) return true;
  // A prepared statement DDL made stale (src/db/statement-names.ts): sent again, it is prepared anew.
  if (isStalePlan(err)) return true;
  return /Connection terminated|connection error and is not queryable|Cannot use a pool after calling end|PGlite is closed|database is closed|timeout exceeded when trying to connect/i.test(e.message ?? '');
}
