import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyDataDir } from './data-dir-copy.ts';

const root = mkdtempSync(join(tmpdir(), 'data-dir-copy-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('copyDataDir', () => {
  it('copies every byte and mode, and leaves holes where whole 8 kB blocks are zeros', () => {
    const from = join(root, 'from');
    mkdirSync(join(from, 'base', '5'), { recursive: true, mode: 0o700 });
    // A WAL segment's shape: records at the start, zeros after, and a block of data far in (past a chunk's end).
    const segment = Buffer.alloc(2 * 1024 * 1024);
    segment.fill(7, 0, 20_000);
    segment.fill(9, 1_000_000, 1_008_192);
    segment[segment.length - 1] = 1; // a last, partly filled block
    writeFileSync(join(from, 'base', '5', 'segment'), segment, { mode: 0o600 });
    writeFileSync(join(from, 'PG_VERSION'), '17\n', { mode: 0o644 });
    writeFileSync(join(from, 'empty'), '');

    const to = join(root, 'to');
    copyDataDir(from, to);

    expect(readFileSync(join(to, 'base', '5', 'segment')).equals(segment)).toBe(true);
    expect(readFileSync(join(to, 'PG_VERSION'), 'utf8')).toBe('17\n');
    expect(readFileSync(join(to, 'empty')).length).toBe(0);
    expect(statSync(join(to, 'base', '5', 'segment')).mode & 0o777).toBe(0o600);
    expect(statSync(join(to, 'base')).mode & 0o777).toBe(0o700);
    // 40 kB of data in 2 MB: the copy holds about that, not the whole file (tmpfs and ext4 both keep holes).
    const copied = statSync(join(to, 'base', '5', 'segment'));
    expect(copied.size).toBe(segment.length);
    expect(copied.blocks * 512).toBeLessThan(256 * 1024);
  });

  it('refuses a link rather than following it out of the directory', () => {
    const from = join(root, 'linked');
    mkdirSync(from);
    symlinkSync('/etc', join(from, 'outside'));
    expect(() => copyDataDir(from, join(root, 'linked-copy'))).toThrow(/outside is neither a file nor a folder/);
  });
});
