// vitest's own runner, which before a floating file runs (test/runner/floating.ts) claims it for this pass, and
// when the other pass has it already, skips the whole file: no hook of it runs (no database opened, no server or
// browser started), and its tests are reported as skipped, as a `describe.skip` would be.
import { relative } from 'node:path';
import type { RunnerTask, RunnerTestSuite } from 'vitest';
import { VitestTestRunner } from 'vitest/runners';
import { claim, claimsDir, FLOATING } from './floating.ts';

function skipAll(task: RunnerTask): void {
  task.mode = 'skip';
  if (task.type === 'suite') for (const child of task.tasks) skipAll(child);
}

export default class ClaimingRunner extends VitestTestRunner {
  override async onBeforeRunSuite(suite: RunnerTestSuite): Promise<void> {
    const dir = claimsDir();
    if (dir && suite.file === suite) {
      const file = relative(this.config.root, suite.file.filepath);
      if (FLOATING.includes(file) && !claim(dir, file)) skipAll(suite);
    }
    return super.onBeforeRunSuite(suite);
  }
}
