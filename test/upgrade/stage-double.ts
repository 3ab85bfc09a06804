// A copy of the real vN+1 bundle whose launcher (bin/cairn.mjs) plays a different upgrade stage, chosen per run by
// CAIRN_TEST_STAGE in the environment the engine passes on; everything else, and every run without the variable,
// goes to the real compiled server. The manifest's SHA-256 of the launcher is rewritten, so the bundle unpacks and
// verifies like any other.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MANIFEST_FILE, sha256File, unpackBundle, type BundleManifest } from '../../src/upgrade/bundle.ts';
import { STAGE_REFUSED_EXIT } from '../../src/upgrade/engine/stage-protocol.ts';

/**
 * none:     `upgrade stage` is an unknown command, answered as the release's own CLI answers one (a release older
 *           than the hand-over).
 * foreign:  `upgrade stage --protocols` lists only protocol 99.
 * refuse:   accepts our protocol, then refuses the hello over IPC and exits STAGE_REFUSED_EXIT.
 * die:      accepts our protocol, then dies (SIGKILL) right after the hello.
 */
export type StageMode = 'none' | 'foreign' | 'refuse' | 'die';

export const FOREIGN_PROTOCOL = 99;

/** The release's own launcher, kept beside the double (in bin/, where it finds the release as it always does). */
const REAL_LAUNCHER = 'cairn-real.mjs';

function launcher(unknownCommand: { text: string; code: number }): string {
  return `#!/usr/bin/env node
// Test double of an upgrade stage (test/upgrade/stage-double.ts); without CAIRN_TEST_STAGE this is the real launcher.
const mode = process.env.CAIRN_TEST_STAGE ?? '';
const args = process.argv.slice(2);
const at = args.indexOf('upgrade');
const stage = at >= 0 && args[at + 1] === 'stage';
const protocols = stage && args.includes('--protocols');
const hello = () => new Promise((resolve) => process.once('message', resolve));
if (stage && mode === 'none') {
  process.stderr.write(${JSON.stringify(unknownCommand.text)});
  process.exit(${unknownCommand.code});
} else if (protocols && mode === 'foreign') {
  const { version } = JSON.parse((await import('node:fs')).readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  console.log(JSON.stringify({ release: version, protocols: [${FOREIGN_PROTOCOL}] }));
} else if (stage && !protocols && mode === 'refuse') {
  const m = await hello();
  process.send({ refused: 'test double refuses run ' + m.runId }, () => process.exit(${STAGE_REFUSED_EXIT}));
} else if (stage && !protocols && mode === 'die') {
  await hello();
  process.kill(process.pid, 'SIGKILL');
} else {
  await import('./${REAL_LAUNCHER}');
}
`;
}

/** What the release's own CLI prints (and exits with) for `upgrade <unknown>`, with the command named `stage`. */
function unknownCommandAnswer(releaseDir: string): { text: string; code: number } {
  try {
    execFileSync(process.execPath, [join(releaseDir, 'bin/cairn.mjs'), 'upgrade', 'no-such-command'], { stdio: 'pipe' });
  } catch (err) {
    const e = err as { status: number; stderr: Buffer; stdout: Buffer };
    const text = `${e.stderr.toString()}${e.stdout.toString()}`;
    if (!text.includes("unknown command 'no-such-command'")) throw new Error(`the CLI answered an unknown command with: ${text}`);
    return { text: text.replaceAll('no-such-command', 'stage'), code: e.status };
  }
  throw new Error('the CLI accepted an unknown command');
}

/** Builds the double from the real bundle; returns its path (same file name) and a cleanup. */
export async function stageDoubleBundle(realBundle: string): Promise<{ bundle: string; remove: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-stage-double-'));
  const release = join(dir, 'release');
  await unpackBundle(realBundle, release);
  const entry = join(release, 'bin/cairn.mjs');
  const unknownCommand = unknownCommandAnswer(release);
  copyFileSync(entry, join(release, 'bin', REAL_LAUNCHER));
  writeFileSync(entry, launcher(unknownCommand));
  const manifest = JSON.parse(readFileSync(join(release, MANIFEST_FILE), 'utf8')) as BundleManifest;
  manifest.sha256['bin/cairn.mjs'] = await sha256File(entry);
  manifest.sha256[`bin/${REAL_LAUNCHER}`] = await sha256File(join(release, 'bin', REAL_LAUNCHER));
  writeFileSync(join(release, MANIFEST_FILE), JSON.stringify(manifest, null, 1));
  const bundle = join(dir, realBundle.split('/').pop()!);
  execFileSync('tar', ['--use-compress-program=gzip -1', '-cf', bundle, '--owner=0', '--group=0', '--numeric-owner', '-C', release, ...readdirSync(release).sort()]);
  rmSync(release, { recursive: true, force: true });
  return { bundle, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
