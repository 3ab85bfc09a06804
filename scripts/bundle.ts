// `npm run bundle`: builds dist/cairn-X.Y.Z.tar.gz from this checkout and prints its SHA-256.
//   --skip-web       leave the web UI out (no build)
//   --out <dir>      where the bundle goes (default dist/)
import { resolve } from 'node:path';
import { buildBundle, BundleError } from '../src/upgrade/bundle.ts';

const args = process.argv.slice(2);
const outIndex = args.indexOf('--out');
const outDir = outIndex >= 0 && args[outIndex + 1] ? args[outIndex + 1] : 'dist';
const unknown = args.filter((a, i) => a !== '--skip-web' && a !== '--out' && !(i > 0 && args[i - 1] === '--out'));
if (unknown.length) {
  process.stderr.write(`bundle: unknown argument ${unknown[0]} (takes --skip-web and --out <dir>)\n`);
  process.exit(2);
}

try {
  const started = Date.now();
  const { path, sha256, manifest } = await buildBundle({ sourceDir: resolve('.'), outDir: resolve(outDir), skipWeb: args.includes('--skip-web') });
  process.stdout.write(`${path}\n`);
  process.stdout.write(`version ${manifest.version}, ${Object.keys(manifest.sha256).length} files, ${manifest.migrations.length} migrations, built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  process.stdout.write(`SHA-256 ${sha256}\n`);
} catch (err) {
  if (err instanceof BundleError) {
    process.stderr.write(`bundle: ${err.message}\n`);
    process.exit(1);
  }
  throw err;
}
