// Files of the "shared" project (vitest.config.ts) run one after another in one worker process, which imports the
// app once instead of once per file. Whatever a file sets in process.env (an SSRF allow-list, a secret key) is put
// back when it ends, so the next file starts from the same environment as in a process of its own; so do the
// helpers' name counters (a file expects its first site to be `Site 1`).
import { afterAll, beforeAll } from 'vitest';
import { resetInventoryNumbering } from '../helpers/inventory.ts';

const before = { ...process.env };

beforeAll(() => resetInventoryNumbering());

afterAll(() => {
  for (const key of Object.keys(process.env)) if (!(key in before)) delete process.env[key];
  Object.assign(process.env, before);
});
