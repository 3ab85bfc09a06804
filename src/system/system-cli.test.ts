// `cairn backup …` and `cairn step-notes` as real processes on an embedded database of their own.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BackupInfo } from './backup.ts';
import type { StepNotesStatus } from '../install/step-notes.ts';
import { bareEnv, seedMigratedDataDir } from '../../test/helpers/cairn-process.ts';

const bin = resolve(import.meta.dirname, '../../bin/cairn.mjs');
const work = mkdtempSync(join(tmpdir(), 'cairn-cli-test-'));
const dataDir = join(work, 'data');

afterAll(() => rmSync(work, { recursive: true, force: true }));

function cairn(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    execFile(
      process.execPath,
      [bin, '--data-dir', dataDir, ...args],
      // The checkout's .env must not leak in: run from the work dir, backups under it.
      { cwd: work, env: bareEnv({ HOME: work, CAIRN_BACKUPS_DIR: join(work, 'backups') }), encoding: 'utf8' },
      (err, stdout, stderr) => res({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('cairn backup', () => {
  let id = '';

  it('takes a manual backup and lists it', async () => {
    seedMigratedDataDir(dataDir); // migrated: the run's template (initdb and the migrations cost seconds)
    const made = await cairn('backup');
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    const list = await cairn('backup', 'list', '--json');
    const backups = JSON.parse(list.stdout) as BackupInfo[];
    expect(backups).toHaveLength(1);
    expect(backups[0]).toMatchObject({ kind: 'manual' });
    id = backups[0]!.id;
    expect(made.stdout).toContain(`Backup ${id} written`);
  }, 180_000);

  it('restores only with --yes, and names an unknown id first', async () => {
    const unknown = await cairn('backup', 'restore', '20990101T000000Z-manual-abcdef', '--yes');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^cairn: no backup 20990101T000000Z-manual-abcdef in /);
    const unconfirmed = await cairn('backup', 'restore', id);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr).toContain('run again with --yes');
    const restored = await cairn('backup', 'restore', id, '--yes');
    expect(restored.stderr).toBe('');
    expect(restored.stdout).toContain(`Restored ${id}.`);
  }, 180_000);
});

describe('cairn step-notes', () => {
  it('lists and acknowledges; unknown ids fail with one line', async () => {
    // A fresh install starts with its own release's steps done.
    const fresh = JSON.parse((await cairn('step-notes', '--json')).stdout) as StepNotesStatus;
    expect(fresh.pending).toEqual([]);
    const bad = await cairn('step-notes', '--ack', 'no-such-step');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('cairn: unknown after-upgrade step "no-such-step"\n');
    const acked = await cairn('step-notes', '--ack', '0.1.0-offsite-backups');
    expect(acked.code).toBe(0);
    expect(acked.stdout).toContain('Acknowledged: 0.1.0-offsite-backups');
    const after = JSON.parse((await cairn('step-notes', '--json')).stdout) as StepNotesStatus;
    expect(after.acknowledged.map((a) => a.id)).toEqual(['0.1.0-offsite-backups']);
  }, 180_000);
});
