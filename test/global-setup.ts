// Runs once before the suite: builds a migrated embedded database to copy per test file (a fresh PGlite
// initdb takes seconds; a copy takes a fraction of that).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openPGlite } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrator.ts';
// The registry, so the template carries the search triggers derived from it (installing them per file costs ~1 s).
import '../src/models.ts';

let templateDir: string | null = null;

export async function setup(project: TestProject): Promise<void> {
  if (!process.env.TEST_DATABASE_URL) {
    templateDir = mkdtempSync(join(tmpdir(), 'cairn-test-template-'));
    const database = await openPGlite(templateDir);
    await migrateToLatest(database.db);
    await database.close();
  }
  project.provide('pgliteTemplate', templateDir ?? '');
}

export async function teardown(): Promise<void> {
  if (templateDir) rmSync(templateDir, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
  }
}
