import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holdForRestore, restoreHoldFile, restoreHolding } from './restore-hold.ts';

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((r) => child.on('exit', r));
  return child.pid!;
}

describe('restore hold', () => {
  it('is held while a restore lives, refuses a second one, and goes when released', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-restore-hold-'));
    expect(restoreHolding(dir)).toBeNull();
    const release = holdForRestore(dir, 'b1');
    expect(restoreHolding(dir)).toMatchObject({ backupId: 'b1', pid: process.pid, alive: true });
    expect(() => holdForRestore(dir, 'b2')).toThrow(/A restore is in progress \(backup b1/);
    release();
    expect(restoreHolding(dir)).toBeNull();
  });

  it('a dead restore still holds the site (the database may be half restored) until a new restore replaces it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-restore-hold-'));
    writeFileSync(restoreHoldFile(dir), JSON.stringify({ backupId: 'b0', pid: await deadPid(), pidStart: null, since: '2026-01-01T00:00:00Z' }));
    expect(restoreHolding(dir)).toMatchObject({ backupId: 'b0', alive: false });
    const release = holdForRestore(dir, 'b0');
    expect(restoreHolding(dir)).toMatchObject({ backupId: 'b0', pid: process.pid, alive: true });
    release();
  });
});
