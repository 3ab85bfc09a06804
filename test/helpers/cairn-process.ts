// The `cairn` command as real processes for tests: one-shot commands and a `cairn serve` that is waited on until
// it answers /api/health/. The caller builds the environment (which database, data directory, allow-list), so
// each suite says what its processes see.
import { ANSWER_MISMATCH } from '../../src/core/answer-check.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { inject } from 'vitest';
import { copyDataDir } from './data-dir-copy.ts';

export const CAIRN_BIN = join(resolve(import.meta.dirname, '../..'), 'bin', 'cairn.mjs');

export interface CairnRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CairnProcessOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/**
 * An environment with nothing of the checkout's or the caller's in it (no DATABASE_URL, no .env values), for
 * processes that must see only what a test gives them, but with what the test run sets for every process it
 * starts: its temporary directory (in memory, test/runner/tmpdir.ts), V8's baseline tiers for short processes
 * (NODE_OPTIONS, test/runner/short-process-tiers.cjs) and the suite's password hash cost.
 */
export function bareEnv(vars: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
  for (const key of ['TMPDIR', 'NODE_OPTIONS', 'CAIRN_PASSWORD_HASH_COST'] as const) if (process.env[key] !== undefined) env[key] = process.env[key];
  return { ...env, ...vars };
}

/**
 * Fills an embedded data directory with a copy of the run's migrated template, so the first `cairn` command a
 * test starts does not spend seconds on initdb and the migrations (unless first-run behaviour is what it tests).
 * False when the run made no template (the caller migrates another way).
 */
export function seedMigratedDataDir(dataDir: string): boolean {
  const template = inject('pgliteTemplate');
  if (template) copyDataDir(template, dataDir);
  return Boolean(template);
}

/** Runs one `cairn` command to its end. */
export function runCairn(args: string[], { cwd, env }: CairnProcessOptions): Promise<CairnRun> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CAIRN_BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => done(port));
    });
  });
}

export interface CairnServer {
  child: ChildProcess;
  port: number;
  /** http://127.0.0.1:<port> */
  url: string;
  /** Everything the process wrote so far, stdout and stderr interleaved. */
  output(): string;
  /** SIGTERM, then its exit code once it has exited (at once if it already has). */
  stop(): Promise<number | null>;
}

/** Starts `cairn serve` on a free port and waits until /api/health/ answers 200 (or the process exits). */
export async function startServe({ cwd, env }: CairnProcessOptions): Promise<CairnServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [CAIRN_BIN, 'serve', '--port', String(port)], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  let exitCode: number | null | undefined;
  void exited.then((c) => (exitCode = c));
  const url = `http://127.0.0.1:${port}`;
  // Start-up on a loaded CI machine (a first compile, PGlite's first open) can take a while: wait up to 3 minutes, and fail
  // with the output rather than with a test timeout that shows nothing.
  let healthy = false;
  for (let i = 0; i < 1800 && !healthy; i++) {
    if (exitCode !== undefined) throw new Error(`cairn serve exited with ${exitCode}: ${out}`);
    try {
      const res = await fetch(`${url}/api/health/`);
      healthy = res.status === 200;
    } catch {
      /* not listening yet */
    }
    if (!healthy) await new Promise((r) => setTimeout(r, 100));
  }
  if (!healthy) {
    // Not left running after the suite whose wait gave up on it.
    child.kill('SIGKILL');
    throw new Error(`cairn serve did not answer /api/health/ within 3 minutes: ${out}`);
  }
  return {
    child,
    port,
    url,
    output: () => out,
    stop: async () => {
      if (exitCode === undefined) child.kill('SIGTERM');
      const code = await exited;
      // Each answer that strayed from its documented schema was logged (src/core/answer-check.ts).
      const strayed = out.split('\n').filter((line) => line.includes(ANSWER_MISMATCH));
      if (strayed.length) throw new Error(`cairn serve answered ${strayed.length} time(s) outside its documented schemas:\n${strayed.slice(0, 5).join('\n')}`);
      return code;
    },
  };
}
