// The free disk an upgrade asks for at preflight: the release, the backup and a snapshot written under the root.
import { describe, expect, it } from 'vitest';
import { diskNeed } from './disk-need.ts';

const MB = 1024 ** 2;

describe('diskNeed', () => {
  it('counts the database twice when the backup and the snapshot are both files under the root', () => {
    const need = diskNeed({ release: 50 * MB, database: 100 * MB, backup: true, snapshotUnderRoot: true });
    expect(need.bytes).toBe(1.2 * 250 * MB + 200 * MB);
    expect(need.parts).toBe('release 50 MB, backup 100 MB, snapshot 100 MB');
  });

  it('leaves out a snapshot the database server copies, and a backup skipped on request', () => {
    const need = diskNeed({ release: 50 * MB, database: 5000 * MB, backup: false, snapshotUnderRoot: false });
    expect(need.bytes).toBe(1.2 * 50 * MB + 200 * MB);
    expect(need.parts).toBe('release 50 MB, no backup, snapshot copied by the database server');
  });

  it('counts a PostgreSQL backup even when the snapshot is a copy (the backup is a dump under the root)', () => {
    expect(diskNeed({ release: 0, database: 5000 * MB, backup: true, snapshotUnderRoot: false }).bytes).toBe(1.2 * 5000 * MB + 200 * MB);
  });
});
