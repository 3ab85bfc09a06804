// The order test files start in. The workers share the cores, so the run ends when the last long file ends: the
// long files (real installs, real servers, real browsers) go first and the many short ones fill in behind them.
// On a clean clone vitest knows no durations (it would start the largest files first, whatever they cost), so the
// known-slow files are listed here, slowest first, as `npm run test:times` measured them; the rest follow by size.
// The floating files (test/runner/floating.ts) come last, in their list's order, so that they even out the passes.
//
// The files that run in a process of their own (the "isolated" project, vitest.config.ts) all start before the
// shared workers' files (with one worker a pass, vitest.config.ts's group order keeps it so). Vitest keeps a shared worker (and the app it imported) for the next file only when the
// next file in its queue is a shared one; a run that interleaved the two started a new shared worker after each
// isolated file, 38 in a CI run where 4 were needed, each about 3.5 CPU-s of a slow machine to start and import.
// The isolated files are mostly the long ones anyway; the long shared files lead the shared ones.
import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { FLOATING } from './floating.ts';

/** Path prefixes of the slow files, slowest first (a prefix covers a folder). */
export const SLOW_FIRST = [
  'test/upgrade/faults-outcomes.test.ts',
  'test/upgrade/faults-rollback.test.ts',
  'test/upgrade/handover.test.ts',
  'test/upgrade/kill.test.ts',
  'test/upgrade/clean.test.ts',
  // Started last (a small file, so sorted by size at the end) it ran alone for the PostgreSQL pass's last 60 s.
  'test/bench-smoke.test.ts',
  'test/cli.test.ts',
  'test/web/upgrade-live.test.ts',
  'test/netbox-clients.test.ts',
  'src/system/system-cli.test.ts',
  'src/upgrade/bundle.test.ts',
  'src/search/cli.test.ts',
  'src/extras/webhook-serve.test.ts',
  'test/registry-generated.test.ts',
  'test/cli-progress.test.ts',
  'src/extras/webhook.test.ts',
  'test/web/',
  'src/system/backup.test.ts',
  'src/automation/deploy.test.ts',
  'src/upgrade/online-cli.test.ts',
  'src/netbox-import/netbox-import.test.ts',
  'src/search/write-paths.test.ts',
  'src/dcim/ports.test.ts',
  'test/multi-process.test.ts',
  'test/ansible-inventory.test.ts',
  'test/openapi-client.test.ts',
];

function rank(file: string): number {
  // The floating files end each pass, in the same order in both (test/runner/floating.ts says why).
  const floating = FLOATING.indexOf(file);
  if (floating !== -1) return SLOW_FIRST.length + 1 + floating;
  const i = SLOW_FIRST.findIndex((p) => file === p || (p.endsWith('/') && file.startsWith(p)));
  return i === -1 ? SLOW_FIRST.length : i;
}

export interface QueuedFile {
  /** Relative to the root. */
  file: string;
  /** Runs in a process of its own (its project's `isolate`). */
  isolated: boolean;
  size: number;
}

/** The start order: isolated files first, then by SLOW_FIRST, then larger files first, then the floating files. */
export function startOrder<T extends QueuedFile>(files: T[]): T[] {
  return files
    .map((f) => ({ f, rank: rank(f.file) }))
    .sort((a, b) => Number(b.f.isolated) - Number(a.f.isolated) || a.rank - b.rank || b.f.size - a.f.size || (a.f.file < b.f.file ? -1 : 1))
    .map((k) => k.f);
}

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const queued = files.map((spec) => {
      let size = 0;
      try {
        size = statSync(spec.moduleId).size;
      } catch {
        /* gone: sorts last */
      }
      return { spec, file: relative(root, spec.moduleId), isolated: spec.project.config.isolate !== false, size };
    });
    return startOrder(queued).map((q) => q.spec);
  }
}
