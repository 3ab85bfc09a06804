// Shared by the benchmarks: a throw-away migrated database (PostgreSQL when BENCH_DATABASE_URL is set,
// else embedded), and timing helpers that report medians. For comparisons on PostgreSQL, BENCH_DB_POOL sets the
// pool's size (default 10, as the server's) and BENCH_NAMED=0 turns named statements off (src/db/statement-names.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
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
    await admin.query(`CREATE DATABASE ${name}`);
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

export async function medianMs(runs: number, work: () => Promise<unknown>, warmup = 3): Promise<number> {
  for (let i = 0; i < warmup; i++) await work();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    await work();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export function fmt(ms: number): string {
  return `${ms.toFixed(2)} ms`;
}

/** "load 1.02/0.87/0.75 on 2 cores": printed next to timings, which mean little on a busy machine. */
export function loadNote(): string {
  return `load ${loadavg().map((l) => l.toFixed(2)).join('/')} on ${availableParallelism()} cores`;
}
