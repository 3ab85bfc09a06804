// The fingerprint of what the web UI is built from (web/src, its page, its build config and the locked
// dependencies): written into web/dist/build-id.json by the build, compared by `cairn maintenance collectstatic`
// to tell a current build from a stale one without building.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const INPUTS = ['web/src', 'web/build', 'web/index.html', 'web/vite.config.ts', 'web/tsconfig.json', 'package-lock.json'];

/** sha256 over the inputs' paths and contents, in a fixed order; null when the sources are not here (a release). */
export function webSourcesHash(repoRoot: string): string | null {
  if (!existsSync(join(repoRoot, 'web', 'src'))) return null;
  const hash = createHash('sha256');
  const walk = (rel: string) => {
    const full = join(repoRoot, rel);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) {
      // Generated API types (*.gen.ts) are types only: they change no byte of the built UI.
      for (const name of readdirSync(full).sort()) if (!name.endsWith('.gen.ts')) walk(`${rel}/${name}`);
    } else {
      hash.update(`${rel}\0`).update(readFileSync(full)).update('\0');
    }
  };
  for (const input of INPUTS) walk(input);
  return hash.digest('hex');
}
