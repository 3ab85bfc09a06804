// Fault injection at a step before resume (CAIRN_UPGRADE_FAIL_AT fails right after the step's work): the run
// must roll back to exactly the old release on an unchanged (or restored) database.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { listBackups } from '../../src/upgrade/backup.ts';
import { readJournal, type StepName } from '../../src/upgrade/engine/journal.ts';
import type { Bundles, Install } from './install.ts';
import { expectConsistent } from './expect.ts';

const NOTHING_STOPPED: StepName[] = ['preflight', 'backup', 'prepare'];

export async function failAt(inst: Install, bundles: Bundles, step: StepName, devices: number): Promise<void> {
  const run = await inst.cairn(['upgrade', 'bundle', bundles.vN1], { CAIRN_UPGRADE_FAIL_AT: step });
  expect(run.code, run.out).toBe(1);
  expect(run.out).toContain(`Failed at ${step}: fault injected after the ${step} step's work`);
  const journal = readJournal(inst.layout.journalFile)!;
  expect(journal).toMatchObject({ state: 'failed', failedStep: step, versionTo: bundles.versionN1 });
  const migrated = journal.context.migrateStarted;
  expect(journal.outcome).toEqual({
    code: NOTHING_STOPPED.includes(step) ? 'unchanged' : 'restored',
    database: migrated ? 'restored' : 'unchanged',
    services: 'running',
  });
  await expectConsistent(inst, bundles.versionN, devices);
  expect(existsSync(join(inst.layout.releases, bundles.versionN1))).toBe(false);
  expect(existsSync(journal.context.workDir)).toBe(false);
  const card = (await inst.api('/api/system/upgrade/')).body as { last_upgrade: { failed_step: string; error: string } };
  expect(card.last_upgrade.failed_step).toBe(step);
}

export async function expectBackupsPruned(inst: Install): Promise<void> {
  const backups = await listBackups(inst.layout.backupsDir);
  expect(backups).toHaveLength(3);
  expect(backups.every((b) => b.kind === 'pre-upgrade')).toBe(true);
}
