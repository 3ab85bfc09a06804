// Shared by the benchmarks: a throw-away migrated database (PostgreSQL when BENCH_DATABASE_URL is set,
// else embedded), and timing helpers that report medians. For comparisons on PostgreSQL, BENCH_DB_POOL sets the
// pool's size (default 10, as the server's) and BENCH_NAMED=0 turns named statements off (src/db/statement-names.ts).
// `npm run bench -- --tiny` (BENCH_TINY=1) runs every benchmark at a size that only shows it starts and sets up
// (test/bench-smoke.test.ts); BENCH_TEMPLATE_DATABASE (a migrated PostgreSQL database) or BENCH_PGLITE_TEMPLATE (a
// migrated data directory) are copied instead of migrating a database per benchmark.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pg from 'pg';
import { openPGlite, openPostgres, type Database } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrator.ts';

export async function openBenchDatabase(): Promise<Database & { label: string }> {
  const url = process.env.BENCH_DATABASE_URL;
  if (url) {
    const name = `cairn_bench_${process.pid}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    const template = process.env.BENCH_TEMPLATE_DATABASE;
    await admin.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
    await admin.end();
    const u = new URL(url);
    u.pathname = `/${name}`;
    const database = await openPostgres(u.toString(), Number(process.env.BENCH_DB_POOL ?? 10), { namedStatements: process.env.BENCH_NAMED !== '0' });
    await migrateToLatest(database.db);
    return {
      ...database,
      label: 'PostgreSQL',
      close: async () => {
        await database.close();
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name}`);
        await c.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-'));
  if (process.env.BENCH_PGLITE_TEMPLATE) cpSync(process.env.BENCH_PGLITE_TEMPLATE, dir, { recursive: true });
  const database = await openPGlite(dir);
  await migrateToLatest(database.db);
  return {
    ...database,
    label: 'embedded PGlite',
    close: async () => {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** True under `npm run bench -- --tiny`: every size as small as still exercises the code. */
export const TINY = process.env.BENCH_TINY === '1';

/**
 * A benchmark's size: the environment variable `env` when set, else `tiny` under --tiny, else `full`. Device counts
 * pass `devices: true` so `npm run bench -- --devices N` (BENCH_DEVICES_ALL) sets every benchmark's at once.
 */
export function benchSize(env: string | null, full: number, tiny: number, opts: { devices?: boolean } = {}): number {
  const given = (env ? process.env[env] : undefined) ?? (opts.devices ? process.env.BENCH_DEVICES_ALL : undefined);
  if (given !== undefined && given !== '') {
    const n = Number(given);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${env ?? 'BENCH_DEVICES_ALL'}=${given}: a whole number is expected`);
    return n;
  }
  return TINY ? tiny : full;
}

export async function medianMs(runs: number, work: () => Promise<unknown>, warmup = 3): Promise<number> {
  return (await turnMediansMs(runs, [work], warmup))[0]!;
}

/**
 * The medians of several works measured in turns (a, b, c, a, b, c, …) after `warmup` turns: for a ratio between
 * them. Measured one after the other, the first work met the colder process (its code not yet optimised, the
 * database still settling after a load) and a ratio swung by ±20 % between runs.
 */
export async function turnMediansMs(runs: number, works: ReadonlyArray<() => Promise<unknown>>, warmup = 3): Promise<number[]> {
  if (TINY) [runs, warmup] = [1, 0];
  for (let i = 0; i < warmup; i++) for (const work of works) await work();
  const times: number[][] = works.map(() => []);
  for (let i = 0; i < runs; i++) {
    for (let k = 0; k < works.length; k++) {
      const t = process.hrtime.bigint();
      await works[k]!();
      times[k]!.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }
  return times.map((ts) => ts.sort((a, b) => a - b)[Math.floor(ts.length / 2)]!);
}

export function fmt(ms: number): string {
  return `${ms.toFixed(2)} ms`;
}

/** "load 1.02/0.87/0.75 on 2 cores": printed next to timings, which mean little on a busy machine. */
export function loadNote(): string {
  return `load ${loadavg().map((l) => l.toFixed(2)).join('/')} on ${availableParallelism()} cores`;
}

/** A full garbage collection now, without starting node with --expose-gc (the bench runs through bin/run-ts.mjs). */
export function collectGarbage(): void {
  setFlagsFromString('--expose_gc');
  (runInNewContext('gc') as () => void)();
}
