// The free disk an upgrade asks for at preflight: the release, the backup and a snapshot written under the root.
import { describe, expect, it } from 'vitest';
import { diskNeed } from './disk-need.ts';

const MB = 1024 ** 2;

describe('diskNeed', () => {
  it('counts the release, a backup as large as the last one, and a snapshot at the database size', () => {
    const need = diskNeed({ release: 50 * MB, backup: { bytes: 30 * MB, asLast: true }, snapshot: 100 * MB });
    expect(need.bytes).toBe(1.2 * 180 * MB + 200 * MB);
    expect(need.parts).toBe('release 50 MB; backup 30 MB (as the last one); snapshot 100 MB');
  });

  it('with no backup yet counts the database for it', () => {
    expect(diskNeed({ release: 0, backup: { bytes: 5000 * MB, asLast: false }, snapshot: null }).parts).toBe(
      "release 0 MB; backup 5000 MB (the database's size: no backup yet); snapshot copied by the database server",
    );
  });

  it('leaves out a snapshot the database server copies, and a backup skipped on request', () => {
    const need = diskNeed({ release: 50 * MB, backup: null, snapshot: null });
    expect(need.bytes).toBe(1.2 * 50 * MB + 200 * MB);
    expect(need.parts).toBe('release 50 MB; no backup; snapshot copied by the database server');
  });
});
