// Where the upgrade's snapshot takes its size threshold from (the copy by the server or a dump: src/system/database-copy.ts).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { layoutFor } from '../../install/layout.ts';
import { COPY_FROM_BYTES } from '../../system/database-copy.ts';
import type { EngineContext } from './context.ts';
import { readJournal, type Journal } from './journal.ts';
import { snapshotCopyFromBytes } from './snapshot.ts';

const root = mkdtempSync(join(tmpdir(), 'cairn-snapshot-setting-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function context(envFile: string | null, env: NodeJS.ProcessEnv = {}): EngineContext {
  const dir = mkdtempSync(join(root, 'install-'));
  const layout = layoutFor(dir);
  mkdirSync(layout.upgradeDir, { recursive: true });
  mkdirSync(join(layout.envFile, '..'), { recursive: true });
  if (envFile !== null) writeFileSync(layout.envFile, envFile);
  const journal = { id: 'run', state: 'running', warnings: [], steps: [], context: {} } as unknown as Journal;
  return { layout, host: {} as EngineContext['host'], journal, env, engineToken: null };
}

describe('snapshotCopyFromBytes', () => {
  it("is the product's default without a setting", () => {
    expect(snapshotCopyFromBytes(context(null))).toBe(COPY_FROM_BYTES);
  });

  it('reads megabytes from the environment, and the install file over it', () => {
    expect(snapshotCopyFromBytes(context(null, { CAIRN_SNAPSHOT_COPY_FROM_MB: '0' }))).toBe(0);
    expect(snapshotCopyFromBytes(context('CAIRN_SNAPSHOT_COPY_FROM_MB=1024\n', { CAIRN_SNAPSHOT_COPY_FROM_MB: '0' }))).toBe(1024 * 1024 ** 2);
  });

  it('warns about a value that is not a whole number of megabytes and uses the default', () => {
    const ctx = context('CAIRN_SNAPSHOT_COPY_FROM_MB=1.5GB\n');
    expect(snapshotCopyFromBytes(ctx)).toBe(COPY_FROM_BYTES);
    // Asked twice in a run (preflight, snapshot): said once.
    expect(snapshotCopyFromBytes(ctx)).toBe(COPY_FROM_BYTES);
    expect(readJournal(ctx.layout.journalFile)!.warnings).toEqual(['CAIRN_SNAPSHOT_COPY_FROM_MB="1.5GB" is not a whole number of megabytes: the default, 256 MB, was used.']);
  });
});
