// The copy's name: a database may be named up to PostgreSQL's 63 bytes, and the copy's name must fit there too
// (the server would cut it silently, and the snapshot file would name a database that does not exist). The
// database's size, which the upgrade's preflight counts in the disk it needs.
import { describe, expect, it } from 'vitest';
import { copyName, databaseBytes, urlOfDatabase } from './database-copy.ts';

describe('copyName', () => {
  it('is the database name with a snapshot suffix', () => {
    expect(copyName('postgres://cairn@db:5432/cairn')).toMatch(/^cairn_snapshot_[0-9a-z]+$/);
  });

  it('fits in 63 bytes however long the name, without cutting a character in two', () => {
    const long = `${'ä'.repeat(31)}x`; // 63 bytes
    const name = copyName(`postgres://cairn@db:5432/${encodeURIComponent(long)}`);
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(63);
    expect(name).toMatch(/^ä+_snapshot_[0-9a-z]+$/);
  });

  it('refuses a URL that names no database', () => {
    expect(() => copyName('postgres://cairn@db:5432/')).toThrow('the database URL names no database');
  });
});

describe('urlOfDatabase', () => {
  it('keeps server, role, password and options', () => {
    expect(urlOfDatabase('postgres://u:p%40ss@db:6432/cairn?sslmode=require', 'cairn_snapshot_x')).toBe('postgres://u:p%40ss@db:6432/cairn_snapshot_x?sslmode=require');
  });
});

describe('databaseBytes', () => {
  it.runIf(process.env.TEST_DATABASE_URL)('is the size PostgreSQL counts for the database', async () => {
    const url = process.env.TEST_DATABASE_URL!;
    const bytes = await databaseBytes(url);
    // A database holds at least its catalogs: several megabytes on every supported version.
    expect(bytes).toBeGreaterThan(1024 ** 2);
    expect(Number.isInteger(bytes)).toBe(true);
  });

  it('refuses a URL that names no database', async () => {
    await expect(databaseBytes('postgres://cairn@db:5432/')).rejects.toThrow('the database URL names no database');
  });
});
