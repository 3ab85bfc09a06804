// Files of the "shared" project (vitest.config.ts) run one after another in one worker process, which imports the
// app once instead of once per file. Whatever a file sets in process.env (an SSRF allow-list, a secret key) is put
// back when it ends, so the next file starts from the same environment as in a process of its own.
import { afterAll } from 'vitest';

const before = { ...process.env };

afterAll(() => {
  for (const key of Object.keys(process.env)) if (!(key in before)) delete process.env[key];
  Object.assign(process.env, before);
});
