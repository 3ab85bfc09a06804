// The last upgrade card (GET /api/system/upgrade/, `cairn upgrade status`): read from the install's journal.
import { readJournal, unfinished, type Journal } from './engine/journal.ts';
import { lockOwnerAlive, readLock } from '../install/lock.ts';
import { tail } from './engine/commands.ts';
import type { InstallLayout } from '../install/layout.ts';

export interface UpgradeCard {
  id: string;
  version_from: string;
  version_to: string | null;
  started_by: string;
  trigger: string;
  started_at: string;
  finished_at: string | null;
  state: Journal['state'];
  /** The step running now (null once the run ended). */
  current_step: string | null;
  outcome: Journal['outcome'];
  failed_step: string | null;
  error: string | null;
  output_excerpt: string | null;
  warnings: string[];
  steps: { name: string; status: string; started: string; ended: string | null; seconds: number | null; detail: string }[];
}

export interface UpgradeStatus {
  last_upgrade: UpgradeCard | null;
  lock: { held: boolean; owner_alive: boolean; unfinished_run: boolean };
}

export function upgradeCard(journal: Journal): UpgradeCard {
  return {
    id: journal.id,
    version_from: journal.versionFrom,
    version_to: journal.versionTo,
    started_by: journal.startedBy,
    trigger: journal.trigger,
    started_at: journal.startedAt,
    finished_at: journal.finishedAt,
    state: journal.state,
    current_step: journal.state === 'running' ? journal.step : null,
    outcome: journal.outcome,
    failed_step: journal.failedStep,
    error: journal.error,
    output_excerpt: journal.errorTail ? tail(journal.errorTail, 2000) : null,
    warnings: journal.warnings,
    steps: journal.steps.map((s) => ({
      name: s.name,
      status: s.status,
      started: s.started,
      ended: s.ended,
      seconds: s.ended ? Math.round(Date.parse(s.ended) - Date.parse(s.started)) / 1000 : null,
      detail: s.detail,
    })),
  };
}

export function upgradeStatus(layout: InstallLayout): UpgradeStatus {
  const journal = readJournal(layout.journalFile);
  return {
    last_upgrade: journal ? upgradeCard(journal) : null,
    lock: { held: readLock(layout.lockFile) !== null, owner_alive: lockOwnerAlive(layout.lockFile), unfinished_run: unfinished(journal) },
  };
}
