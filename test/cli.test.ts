// The `cairn` command as real processes: first run, the data-directory lock, account commands, status, and
// one-line failures. One data directory is reused throughout, a copy of the run's migrated template: the first
// run is one without users (initdb and the migrations on an empty directory cost 5 CPU-s, and the upgrade tests'
// installs run them through the CLI).
import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runCairn, seedMigratedDataDir, startServe, type CairnRun as Run, type CairnServer } from './helpers/cairn-process.ts';

let tmp: string;
let dataDir: string;
const children: ChildProcess[] = [];

function baseEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.DATABASE_URL;
  delete env.CAIRN_ADMIN_PASSWORD;
  delete env.PORT;
  return { ...env, LOG_LEVEL: 'warn', CAIRN_DATA_DIR: dataDir, ...extra };
}

function cairn(args: string[], env: Record<string, string> = {}, unset: string[] = []): Promise<Run> {
  const e = baseEnv(env);
  for (const k of unset) delete e[k];
  return runCairn(args, { cwd: tmp, env: e });
}

/** Starts `cairn serve` and waits until /api/health/ answers (or the process exits). */
async function serve(extra: Record<string, string> = {}): Promise<CairnServer> {
  const server = await startServe({ cwd: tmp, env: baseEnv(extra) });
  children.push(server.child);
  return server;
}

/** A failure as scripts need it: exit 1, one line on stderr, no stack trace. */
function expectOneLineFailure(run: Run, pattern: RegExp): void {
  expect(run.code, `${run.stdout}${run.stderr}`).toBe(1);
  const lines = run.stderr.trim().split('\n');
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^cairn: /);
  expect(lines[0]).toMatch(pattern);
  expect(run.stderr).not.toMatch(/\n\s+at /);
}

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'cairn-cli-'));
  dataDir = join(tmp, 'data');
  seedMigratedDataDir(dataDir);
});
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});

// Real processes on a shared machine: generous per-test time, no timing assertions.
describe('cairn CLI', { timeout: 480_000 }, () => {
  let adminPassword = '';
  let key = '';

  it('serve: first run prints the admin password, answers health, and holds the data directory', async () => {
    const server = await serve({ LOG_LEVEL: 'info' });
    try {
      const m = /Password: (\S+) {3}\(shown once/.exec(server.output());
      expect(m, server.output()).not.toBeNull();
      adminPassword = m![1]!;
      // The sign-in box is printed again as the last line of the start, after the serving line.
      const out = server.output();
      expect(out.lastIndexOf('Password: ')).toBeGreaterThan(out.indexOf('Cairn is serving on'));
      const health = (await (await fetch(`http://127.0.0.1:${server.port}/api/health/`)).json()) as { status: string };
      expect(health.status).toBe('ok');
      // Not a terminal: the log is JSON lines, for collectors (read from the child's pipe as it arrives).
      const jsonLine = /^\{"level":30,.*"msg":"request completed"\}$/m;
      for (let i = 0; i < 200 && !jsonLine.test(server.output()); i++) await new Promise((r) => setTimeout(r, 50));
      expect(server.output()).toMatch(jsonLine);
      const login = await fetch(`http://127.0.0.1:${server.port}/api/auth/login/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: adminPassword }),
      });
      expect(login.status).toBe(200);
      expect(existsSync(join(dataDir, 'cairn.lock'))).toBe(true);

      // A second process on the same data directory fails at once.
      const second = await cairn(['serve', '--port', String(await freePort())]);
      expectOneLineFailure(second, /in use by another Cairn process/);
      expectOneLineFailure(await cairn(['migrate']), /in use by another Cairn process/);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(existsSync(join(dataDir, 'cairn.lock'))).toBe(false);
  });

  it('tenant create, createsuperuser and token create; the key works against a running server', async () => {
    const tenant = await cairn(['tenant', 'create', '--name', 'Operations', '--slug', 'ops']);
    expect(tenant.code, tenant.stderr).toBe(0);
    expect(tenant.stdout.trim()).toMatch(/^[0-9a-f-]{36}$/);

    const su = await cairn(['createsuperuser', '--username', 'ops', '--password', 'ops-password-1', '--email', 'ops@example.com']);
    expect(su.code, su.stderr).toBe(0);
    expect(su.stdout).toContain('ops');
    expectOneLineFailure(await cairn(['createsuperuser', '--username', 'ops', '--password', 'ops-password-1']), /username/);

    const token = await cairn(['token', 'create', '--username', 'ops', '--tenant', 'ops', '--description', 'ci']);
    expect(token.code, token.stderr).toBe(0);
    expect(token.stdout).toMatch(/^[0-9a-f]{40}\n$/);
    key = token.stdout.trim();
    expectOneLineFailure(await cairn(['token', 'create', '--username', 'nosuchuser']), /nosuchuser/);
    // Refused before the database is opened.
    expectOneLineFailure(await cairn(['token', 'create', '--username', 'ops', '--expires-days', '0']), /expires-days/);

    const server = await serve();
    try {
      expect(server.output()).not.toMatch(/First run/);
      const me = await fetch(`http://127.0.0.1:${server.port}/api/auth/me/`, { headers: { authorization: `Token ${key}` } });
      expect(me.status).toBe(200);
      const body = (await me.json()) as { user: { username: string }; active_tenant: { slug: string } };
      expect(body.user.username).toBe('ops');
      expect(body.active_tenant.slug).toBe('ops');
      const anonymous = await fetch(`http://127.0.0.1:${server.port}/api/tags/`);
      expect(anonymous.status).toBe(401);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('status reports version, database and migrations', async () => {
    const text = await cairn(['status']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^Cairn \S+/);
    expect(text.stdout).toContain(`embedded (${dataDir})`);
    expect(text.stdout).toMatch(/pending: none/);
  });

  it('bad configuration fails with one line and exit code 1', async () => {
    expectOneLineFailure(await cairn(['migrate'], { DATABASE_URL: 'not a url' }), /DATABASE_URL/);
    expectOneLineFailure(await cairn(['migrate'], { DATABASE_URL: 'mysql://localhost/x' }), /DATABASE_URL/);
    expectOneLineFailure(await cairn(['status'], { DATABASE_URL: 'postgres://127.0.0.1:1/x' }), /PostgreSQL/);
    expectOneLineFailure(await cairn(['serve'], { DATABASE_URL: 'postgres://127.0.0.1:1/x' }), /PostgreSQL/);
    const file = join(tmp, 'a-file');
    writeFileSync(file, 'not a directory');
    expectOneLineFailure(await cairn(['status'], { CAIRN_DATA_DIR: join(file, 'data') }), /data directory/);
    expectOneLineFailure(await cairn(['serve', '--port', 'notaport']), /port/i);
    // A schedule setting that is not a cron pattern is named, with what it expects, before the database is opened.
    expectOneLineFailure(await cairn(['serve'], { CAIRN_COMPLIANCE_CRON: 'every night' }), /^cairn: Invalid CAIRN_COMPLIANCE_CRON "every night" \(the compliance schedule\): .*five fields/);
    expectOneLineFailure(await cairn(['worker'], { CAIRN_CHECK_TICK: '61 * * * *' }), /^cairn: Invalid CAIRN_CHECK_TICK "61 \* \* \* \*" \(the monitoring schedule\)/);
  });
});
