// When .ci/run runs both passes side by side (CAIRN_TEST_BOTH_PASSES), what is the same code on either database
// is checked in one of them: the per-model generated suites check each model in one pass, and the domains' own
// test files (vitest.config.ts) run in one pass each. A model's API and a domain's rules are the same code on
// either database (the SQL is PostgreSQL's in both); the driver, the pool, transactions, migrations, restores and
// the core's write and read paths are what the files that run in both passes cover twice. The share is fixed by
// the name, so a new model or file does not move the others.
import { createHash } from 'node:crypto';

/** The embedded pass's share of the models: it is the longer pass (its database runs in its own processes). */
const EMBEDDED_SHARE = 0.4;

/** Whether this pass checks `name` (always, when only one pass runs). */
export function checkedInThisPass(name: string, embeddedShare = EMBEDDED_SHARE): boolean {
  if (!process.env.CAIRN_TEST_BOTH_PASSES) return true;
  const slot = createHash('sha1').update(name).digest().readUInt16BE(0) / 0x10000;
  const embedded = slot < embeddedShare;
  return process.env.TEST_DATABASE_URL ? !embedded : embedded;
}
