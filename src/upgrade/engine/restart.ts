// A service restart through the engine: under the upgrade lock, so it never lands in the middle of a run, and
// refused while an interrupted run waits for recovery (starting services then could serve a half-migrated
// database).
import type { Host, ServiceName } from '../host/types.ts';
import { SERVICES } from '../host/types.ts';
import { readJournal, unfinished } from './journal.ts';
import type { InstallLayout } from '../../install/layout.ts';
import { acquireLock, UpgradeBusyError } from '../../install/lock.ts';

export async function restartServices(layout: InstallLayout, host: Host, names: ServiceName[]): Promise<ServiceName[]> {
  const release = acquireLock(layout.lockFile, 'restart');
  try {
    if (unfinished(readJournal(layout.journalFile))) throw new UpgradeBusyError('An interrupted upgrade must be recovered first: cairn upgrade recover');
    const wanted: ServiceName[] = [];
    for (const s of names.length ? names : SERVICES) if (names.length || (await host.isActive(s))) wanted.push(s);
    // Workers stop first and start last, as in an upgrade.
    for (const s of [...wanted].sort((a) => (a === 'worker' ? -1 : 1))) await host.stop(s);
    for (const s of [...wanted].sort((a) => (a === 'web' ? -1 : 1))) await host.start(s);
    return wanted;
  } finally {
    release();
  }
}
