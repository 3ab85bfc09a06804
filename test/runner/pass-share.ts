// When .ci/run runs both passes side by side (CAIRN_TEST_BOTH_PASSES), the per-model generated suites check each
// model in one of them: a model's generic API is the same code on either database (the SQL is PostgreSQL's in
// both), and the driver differences are what every other test covers twice. The share is fixed by the model's
// name, so a new model does not move the others; the embedded pass, which is the longer, takes the smaller share.
import { createHash } from 'node:crypto';

const EMBEDDED_SHARE = 0.4;

/** Whether this pass checks the model (always, when only one pass runs). */
export function checkedInThisPass(name: string): boolean {
  if (!process.env.CAIRN_TEST_BOTH_PASSES) return true;
  const slot = createHash('sha1').update(name).digest().readUInt16BE(0) / 0x10000;
  const embedded = slot < EMBEDDED_SHARE;
  return process.env.TEST_DATABASE_URL ? !embedded : embedded;
}
