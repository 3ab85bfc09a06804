// The launcher starts `cairn upgrade bundle` outside the calling process and answers once the run has its
// journal, or with the run's own refusal. Stand-in releases (a bin/cairn.mjs that behaves like the engine's
// first moments) and a stand-in systemd-run keep this fast; the real engine run is in test/upgrade/clean.test.ts.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { layoutFor, type InstallLayout } from '../install/layout.ts';
import { launchUpgrade, LaunchRefused } from './launch.ts';

const dir = mkdtempSync(join(tmpdir(), 'cairn-launch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An install whose current release's `cairn` runs `script` (ESM, with node:fs imported as fs). */
function install(name: string, script: string, env = ''): InstallLayout {
  const layout = layoutFor(join(dir, name));
  const rel = join(layout.releases, '1.0.0');
  mkdirSync(join(rel, 'bin'), { recursive: true });
  mkdirSync(layout.shared, { recursive: true });
  writeFileSync(join(rel, 'package.json'), JSON.stringify({ version: '1.0.0' }));
  writeFileSync(join(rel, 'bin', 'cairn.mjs'), `import fs from 'node:fs';\n${script}\n`);
  symlinkSync('releases/1.0.0', layout.current);
  writeFileSync(layout.envFile, env);
  return layout;
}

const startsRun = (layout: InstallLayout) => `
fs.mkdirSync(${JSON.stringify(layout.upgradeDir)}, { recursive: true });
fs.writeFileSync(${JSON.stringify(layout.journalFile)}, JSON.stringify({ id: process.env.CAIRN_UPGRADE_RUN_ID, trigger: process.env.CAIRN_UPGRADE_TRIGGER, startedBy: process.env.CAIRN_UPGRADE_STARTED_BY, argv: process.argv.slice(2) }));
setTimeout(() => {}, 3000);`;

describe('launchUpgrade as a process of its own', () => {
  it('answers with the run id once the run wrote its journal; the run carries trigger and who started it', async () => {
    const layout = install('ok', '');
    writeFileSync(join(layout.current, 'bin', 'cairn.mjs'), `import fs from 'node:fs';\n${startsRun(layout)}\n`);
    const launched = await launchUpgrade({ layout, bundlePath: '/tmp/cairn-9.9.9.tar.gz', trigger: 'online', startedBy: 'user:admin' }, {});
    expect(launched.via).toBe('process');
    expect(launched.run_id).toMatch(/^\d{8}T\d{6}-[0-9a-f]{6}$/);
    const journal = JSON.parse(readFileSync(layout.journalFile, 'utf8'));
    expect(journal).toMatchObject({ id: launched.run_id, trigger: 'online', startedBy: 'user:admin', argv: ['upgrade', 'bundle', '/tmp/cairn-9.9.9.tar.gz', '--root', layout.root] });
  });

  it("a refusal of the run comes back as its own words ('An upgrade is already running.' is marked busy)", async () => {
    const busy = install('busy', `process.stderr.write('cairn: An upgrade is already running.\\n'); process.exit(1);`);
    const err = await launchUpgrade({ layout: busy, bundlePath: '/x.tar.gz', trigger: 'bundle', startedBy: 'user:admin' }, {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LaunchRefused);
    expect(err).toMatchObject({ message: 'An upgrade is already running.', busy: true });

    const other = install('other', `process.stderr.write('cairn: No release is installed at /x.\\n'); process.exit(1);`);
    const err2 = await launchUpgrade({ layout: other, bundlePath: '/x.tar.gz', trigger: 'bundle', startedBy: 'user:admin' }, {}).catch((e: unknown) => e);
    expect(err2).toMatchObject({ message: 'No release is installed at /x.', busy: false });

    const silent = install('silent', `process.exit(3);`);
    const err3 = await launchUpgrade({ layout: silent, bundlePath: '/x.tar.gz', trigger: 'bundle', startedBy: 'user:admin' }, {}).catch((e: unknown) => e);
    expect((err3 as Error).message).toMatch(/ended \(exit 3\) before it started the run/);
  });
});

describe('launchUpgrade under systemd', () => {
  /** A systemd-run stand-in: records its arguments, then does what the unit would do first (write the journal). */
  function fakeSystemdRun(layout: InstallLayout, behaviour: 'start' | 'exists'): string {
    const file = join(dir, `systemd-run-${behaviour}.sh`);
    const args = join(dir, `systemd-run-${behaviour}.args`);
    writeFileSync(file, behaviour === 'exists'
      ? `#!/bin/sh\nprintf '%s\\n' "$@" > ${args}\necho 'Failed to start transient service unit: Unit cairn-upgrade.service already exists.' >&2\nexit 1\n`
      : `#!/bin/sh\nprintf '%s\\n' "$@" > ${args}\nid=$(printf '%s\\n' "$@" | sed -n 's/^CAIRN_UPGRADE_RUN_ID=//p')\nmkdir -p ${layout.upgradeDir}\nprintf '{"id":"%s"}' "$id" > ${layout.journalFile}\n`);
    chmodSync(file, 0o755);
    return file;
  }

  it('starts the transient unit cairn-upgrade with the recovery unit on failure, as deploy/install.sh does', async () => {
    const layout = install('systemd', '', 'CAIRN_HOST=systemd\n');
    const launched = await launchUpgrade({ layout, bundlePath: '/b.tar.gz', trigger: 'auto', startedBy: 'automatic' }, { CAIRN_SYSTEMD_RUN: fakeSystemdRun(layout, 'start') });
    expect(launched.via).toBe('systemd-run');
    const args = readFileSync(join(dir, 'systemd-run-start.args'), 'utf8').trim().split('\n');
    expect(args.slice(0, 3)).toEqual(['--user', '--unit=cairn-upgrade', '--collect']);
    for (const p of ['KillMode=mixed', 'TimeoutStopSec=300', 'OnFailure=cairn-recover.service', `StandardOutput=append:${launched.log}`]) expect(args).toContain(p);
    for (const e of [`CAIRN_ROOT=${layout.root}`, 'CAIRN_UPGRADE_TRIGGER=auto', 'CAIRN_UPGRADE_STARTED_BY=automatic', `CAIRN_UPGRADE_RUN_ID=${launched.run_id}`]) expect(args).toContain(e);
    expect(args.slice(-6)).toEqual([join(layout.current, 'bin', 'cairn.mjs'), 'upgrade', 'bundle', '/b.tar.gz', '--root', layout.root]);
  });

  it('a unit that already exists is the busy refusal', async () => {
    const layout = install('systemd-busy', '', 'CAIRN_HOST=systemd\n');
    const err = await launchUpgrade({ layout, bundlePath: '/b.tar.gz', trigger: 'online', startedBy: 'user:admin' }, { CAIRN_SYSTEMD_RUN: fakeSystemdRun(layout, 'exists') }).catch((e: unknown) => e);
    expect(err).toMatchObject({ message: 'An upgrade is already running.', busy: true });
  });
});
