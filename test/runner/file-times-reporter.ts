// Writes, per test file, how long it held a worker (set-up, import and collection, hooks and tests) and when it
// ended, to the JSON file named by CAIRN_TEST_TIMES (`.ci/run` keeps one per database beside vitest's own report).
// vitest's JSON report counts only the tests themselves, without the hooks and imports where most of a slow
// file's time goes. `npm run test:times` reads these files.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

export interface FileTime {
  file: string;
  /** Milliseconds the file held its worker: environment, prepare, setup, import/collect, hooks and tests. */
  ms: number;
  /** Of those, importing the file and what it imports (collection). */
  importMs: number;
  /** Epoch milliseconds when the file ended. */
  ended: number;
  tests: number;
  failed: number;
}

export interface TimesReport {
  started: number;
  ended: number;
  files: FileTime[];
}

export default class FileTimesReporter implements Reporter {
  private root = process.cwd();
  private started = Date.now();
  private files: FileTime[] = [];

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
    this.started = Date.now();
  }

  onTestModuleEnd(module: TestModule): void {
    const d = module.diagnostic();
    // A file skipped whole (a floating file the other pass claimed, test/runner/floating.ts) ran no test here.
    const tests = module.state() === 'skipped' ? [] : [...module.children.allTests()];
    this.files.push({
      file: relative(this.root, module.moduleId),
      ms: Math.round(d.environmentSetupDuration + d.prepareDuration + d.setupDuration + d.collectDuration + d.duration),
      importMs: Math.round(d.collectDuration),
      ended: Date.now(),
      tests: tests.length,
      failed: tests.filter((t) => t.result().state === 'failed').length,
    });
  }

  onTestRunEnd(): void {
    const out = process.env.CAIRN_TEST_TIMES;
    if (!out) return;
    const report: TimesReport = { started: this.started, ended: Date.now(), files: this.files };
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, JSON.stringify(report, null, 1));
  }
}
