// The systemd host through its command construction: a stand-in `systemctl` on PATH records its argv and
// answers like systemctl would for the state the test sets. And the shipped unit files say what SPEC asks.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { PACKAGE_UNITS, packageProcessRunning, SystemdHost } from '../../src/upgrade/host/systemd.ts';
import { hostFor } from '../../src/upgrade/host/index.ts';
import { layoutFor } from '../../src/install/layout.ts';
import { SOURCE } from './install.ts';

let dir: string;
let fake: string;

function calls(): string[] {
  try {
    return readFileSync(join(dir, 'calls'), 'utf8').trim().split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-fake-systemctl-'));
  fake = join(dir, 'systemctl');
  // Active units are listed in $dir/active; `is-active` answers from it; `list-units` prints it.
  writeFileSync(
    fake,
    `#!/bin/sh
echo "$*" >> "${dir}/calls"
case "$*" in
  *is-active*) for u in $(cat "${dir}/active" 2>/dev/null); do case "$*" in *" $u"*) exit 0;; esac; done; exit 3;;
  *list-units*) for u in $(cat "${dir}/active" 2>/dev/null); do case "$u" in *.timer) echo "$u loaded active waiting";; esac; done; exit 0;;
  *fail-me*) echo "Unit fail-me not found." >&2; exit 5;;
esac
exit 0
`,
  );
  chmodSync(fake, 0o755);
});

describe('SystemdHost', () => {
  it('builds user-unit systemctl calls for each operation', async () => {
    writeFileSync(join(dir, 'active'), 'cairn-web.service cairn-eol.timer cairn-recover.timer\n');
    const host = new SystemdHost({ user: true, systemctl: fake });
    expect(await host.isActive('web')).toBe(true);
    expect(await host.isActive('worker')).toBe(false);
    expect(await host.activeTimers()).toEqual(['cairn-eol.timer']); // the recovery timer is never stopped
    await host.stopTimers(['cairn-eol.timer']);
    await host.stop('worker');
    await host.stop('web');
    await host.start('web');
    await host.startTimers(['cairn-eol.timer']);
    await host.installRecovery();
    const release = join(dir, 'release');
    mkdirSync(join(release, 'deploy/systemd'), { recursive: true });
    writeFileSync(join(release, 'deploy/systemd/cairn-web.service'), '');
    writeFileSync(join(release, 'deploy/systemd/README'), '');
    await host.linkUnits(release);
    expect(calls()).toEqual([
      '--user is-active --quiet cairn-web.service',
      '--user is-active --quiet cairn-worker.service',
      '--user list-units --type=timer --state=active --plain --no-legend cairn-*.timer',
      '--user stop cairn-eol.timer',
      '--user stop cairn-worker.service',
      '--user stop cairn-web.service',
      '--user start --no-block cairn-web.service',
      '--user start cairn-eol.timer',
      '--user enable --now cairn-recover.timer',
      '--user enable cairn-recover.service',
      `--user link ${join(release, 'deploy/systemd/cairn-web.service')}`,
      '--user daemon-reload',
    ]);
  });

  it('system units go without --user; a failing systemctl is an error naming the call', async () => {
    const host = new SystemdHost({ user: false, systemctl: fake });
    await host.stop('web');
    expect(calls()).toEqual(['stop cairn-web.service']);
    await expect(host.stopTimers(['fail-me'])).rejects.toThrow(/systemctl stop fail-me failed: Unit fail-me not found\./);
  });

  it('the host is busy with package updates while an apt unit runs (asked of the system manager, even for user units) or a dpkg/apt process lives', async () => {
    const host = new SystemdHost({ user: true, systemctl: fake });
    writeFileSync(join(dir, 'active'), 'cairn-web.service\n');
    expect(await host.packageManagerBusy()).toBe(packageProcessRunning());
    writeFileSync(join(dir, 'active'), 'apt-daily-upgrade.service\n');
    expect(await host.packageManagerBusy()).toBe(true);
    expect(calls()).toEqual(Array(2).fill(`is-active --quiet ${PACKAGE_UNITS.join(' ')}`));

    // The process scan reads comm names from a /proc-like tree.
    const proc = join(dir, 'proc');
    mkdirSync(join(proc, '41'), { recursive: true });
    writeFileSync(join(proc, '41', 'comm'), 'node\n');
    expect(packageProcessRunning(proc)).toBe(false);
    mkdirSync(join(proc, '42'));
    writeFileSync(join(proc, '42', 'comm'), 'unattended-upgr\n');
    expect(packageProcessRunning(proc)).toBe(true);
  });

  it('a release without unit files is refused by linkUnits', async () => {
    const host = new SystemdHost({ user: true, systemctl: fake });
    await expect(host.linkUnits(join(dir, 'nothing'))).rejects.toThrow(/ships no deploy\/systemd units/);
  });

  it('is chosen by CAIRN_HOST=systemd in the install env file; the local supervisor otherwise', () => {
    const layout = layoutFor(join(dir, 'root'));
    mkdirSync(layout.shared, { recursive: true });
    expect(hostFor(layout, {}).kind).toBe('local');
    writeFileSync(layout.envFile, 'CAIRN_HOST=systemd\n');
    expect(hostFor(layout, {}).kind).toBe('systemd');
  });
});

describe('shipped unit files', () => {
  const unit = (name: string) => readFileSync(join(SOURCE, 'deploy/systemd', name), 'utf8');
  it('web and worker run the current release with the shared env file', () => {
    for (const [name, cmd] of [['cairn-web.service', 'serve'], ['cairn-worker.service', 'worker']]) {
      expect(unit(name)).toContain(`current/bin/cairn.mjs ${cmd}`);
      expect(unit(name)).toContain('EnvironmentFile=%h/cairn/shared/.env');
    }
  });
  it('the recovery unit runs before the app units, at boot, and every five minutes', () => {
    const service = unit('cairn-recover.service');
    expect(service).toContain('upgrade recover');
    expect(service).toMatch(/^Before=cairn-web\.service cairn-worker\.service$/m);
    expect(service).toMatch(/^WantedBy=default\.target$/m);
    const timer = unit('cairn-recover.timer');
    expect(timer).toMatch(/^OnUnitActiveSec=5min$/m);
    expect(timer).toMatch(/^OnBootSec=/m);
  });
});
