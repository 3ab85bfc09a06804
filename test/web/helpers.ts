// Browser-test harness: a real `cairn serve` process (temp data dir or a fresh PostgreSQL database, free port,
// its own copy of web/dist so a test can publish a "new build"), Debian's chromium (its headless shell, below)
// through playwright-core, and screenshots under test/web/screenshots/ (gitignored) to look at.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { ANSWER_MISMATCH } from '../../src/core/answer-check.ts';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { chromium, type Browser as PlaywrightBrowser, type BrowserContext, type Page } from 'playwright-core';
import { inject } from 'vitest';
import { freePort } from '../helpers/cairn-process.ts';
import { demoDatabase, demoDataDir } from './demo-cache.ts';
import { copyDataDir } from '../helpers/data-dir-copy.ts';

export const ROOT = resolve(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'cairn.mjs');
const DIST = join(ROOT, 'web', 'dist');
export const SCREENSHOTS = join(ROOT, 'test', 'web', 'screenshots');
// Debian's old headless shell (package chromium-headless-shell: the same Blink and V8 as its chromium, built without
// the desktop browser around them; what Playwright itself drives headless) when it is installed, else its chromium.
// On a slow 2-core machine four feature files cost 88-90 CPU-s of the machine with the shell, 115-118 with the full
// browser in headless mode (alternating runs). CHROMIUM_PATH names another.
const HEADLESS_SHELL = '/usr/lib/chromium/chromium-headless-shell';
export const CHROMIUM = process.env.CHROMIUM_PATH ?? (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : '/usr/bin/chromium');
export const ADMIN_PASSWORD = 'web-test-admin-password';

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM);
}

/** Builds web/dist once when it is missing (CI builds it before the tests; this keeps a single file runnable). */
export function ensureBuilt(): void {
  if (existsSync(join(DIST, 'index.html'))) return;
  const run = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (run.status !== 0) throw new Error('npm run build failed');
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', (code) => done({ code, output }));
  });
}

/** A value the suite's global setup provided, or '' outside vitest (the bench starts from nothing). */
function provided(key: 'pgTemplate' | 'pgliteTemplate'): string {
  try {
    return inject(key);
  } catch {
    return '';
  }
}

export interface WebServer {
  url: string;
  /** The copy of web/dist this server serves; a test may change it. */
  webDir: string;
  /** Calls the API as the signed-in admin (session cookie + CSRF), returning status and parsed body. */
  api<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  output(): string;
  stop(): Promise<void>;
}

export interface ServerOptions {
  /** Loads `cairn demo-data --devices N` before serving. */
  demoDevices?: number;
}

export async function startServer(opts: ServerOptions = {}): Promise<WebServer> {
  ensureBuilt();
  const tmp = mkdtempSync(join(tmpdir(), 'cairn-web-'));
  const webDir = join(tmp, 'web');
  cpSync(DIST, webDir, { recursive: true });
  const dataDir = join(tmp, 'data');
  // The data directory is the server's own on both databases: backups go beside it, never into the checkout.
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', CAIRN_ADMIN_PASSWORD: ADMIN_PASSWORD, CAIRN_WEB_DIR: webDir, CAIRN_EMBEDDED_WORKER: '0', CAIRN_DATA_DIR: dataDir };
  delete env.PORT;
  let dropDatabase: (() => Promise<void>) | null = null;
  const pgUrl = process.env.TEST_DATABASE_URL;
  const loadDemo = async () => {
    const demo = await run(['demo-data', '--devices', String(opts.demoDevices)], env);
    if (demo.code !== 0) throw new Error(`demo-data failed:\n${demo.output}`);
  };
  if (pgUrl) {
    const name = `cairn_web_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const url = new URL(pgUrl);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.toString();
    env.CAIRN_SECRET_KEY ??= 'b'.repeat(64);
    dropDatabase = async () => {
      const c = new pg.Client({ connectionString: pgUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => c.query(`DROP DATABASE IF EXISTS ${name}`));
      await c.end();
    };
    // With demo data: from the run's migrated template (the demo-data process would run the same migrations).
    await demoDatabase(pgUrl, name, opts.demoDevices ? provided('pgTemplate') : '', opts.demoDevices, loadDemo);
  } else {
    delete env.DATABASE_URL;
    // A copy of the suite's migrated template skips initdb and the migrations (only inside vitest; the bench
    // starts from an empty directory).
    const template = provided('pgliteTemplate');
    if (template) copyDataDir(template, dataDir);
    if (opts.demoDevices) await demoDataDir(opts.demoDevices, dataDir, loadDemo);
  }
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve', '--port', String(port)], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`cairn serve exited:\n${output}`);
    const ok = await fetch(`${url}/api/health/`).then((r) => r.ok, () => false);
    if (ok) break;
    if (i > 600) throw new Error(`cairn serve did not answer within 120 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  // Sign the API helper in once, like the browser would.
  const login = await signInOverApi(url);
  const cookies = login.headers.getSetCookie().map((c) => c.split(';')[0]!);
  const csrf = ((await login.json()) as { csrf_token: string }).csrf_token;
  const cookieHeader = cookies.join('; ');
  return {
    url,
    webDir,
    async api<T>(method: string, path: string, body?: unknown) {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { cookie: cookieHeader, 'x-csrf-token': csrf, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
    },
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      await dropDatabase?.();
      rmSync(tmp, { recursive: true, force: true });
      // The server checks its answers against their documented schemas (CAIRN_CHECK_ANSWERS, src/core/answer-check.ts)
      // and logs each mismatch: what the UI asked of it must be answered as the API documents it.
      const strayed = output.split('\n').filter((line) => line.includes(ANSWER_MISMATCH));
      if (strayed.length) throw new Error(`cairn serve answered ${strayed.length} time(s) outside its documented schemas:\n${strayed.slice(0, 5).join('\n')}`);
    },
  };
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Console errors and page errors seen so far (a test can assert there were none). */
  errors: string[];
  close(): Promise<void>;
}

// Inside the test run, one chromium per worker process, shared by the browser-test files that run in it: a launch
// cost 4-5 CPU-s of a slow machine (its processes fault in a 250 MB program each), and a run makes about twenty.
// Each openBrowser still gets a context of its own (cookies, storage, permissions, viewport), closed with it.
// Playwright stops the browser when the worker exits. Outside vitest (bench/web.bench.ts) each call launches its
// own and closes it, so the process can end.
let workerChromium: Promise<PlaywrightBrowser> | undefined;

function launchChromium(): Promise<PlaywrightBrowser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

async function chromiumForThisProcess(): Promise<{ browser: PlaywrightBrowser; owned: boolean }> {
  if (!process.env.VITEST) return { browser: await launchChromium(), owned: true };
  const running = await workerChromium?.catch(() => undefined);
  if (running?.isConnected()) return { browser: running, owned: false };
  workerChromium = launchChromium();
  return { browser: await workerChromium, owned: false };
}

/** Chromium in a fresh context of its own (no cookies, storage or permissions from an earlier file). */
export async function openBrowser(viewport = { width: 1280, height: 800 }): Promise<Browser> {
  const { browser, owned } = await chromiumForThisProcess();
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  return {
    context,
    page,
    errors,
    async close() {
      await context.close();
      if (owned) await browser.close();
    },
  };
}

/**
 * Signs a browser context in as the admin without the form: a sign-in of its own over the API (a session apart from
 * the server's API helper, as a person's browser has), its cookies handed to the context as the server set them.
 * What a page then sees is what a reload after a form sign-in sees; the form itself is test/web/ui.test.ts's. The
 * form's page, two fields and the home page it lands on cost about 1 CPU-s of a slow machine per file (four feature
 * files, alternating: 94.5-97.1 CPU-s with the form, 91.0-91.4 with cookies).
 */
export async function signInContext(context: BrowserContext, server: WebServer): Promise<void> {
  const login = await signInOverApi(server.url);
  await context.addCookies(login.headers.getSetCookie().map((header) => cookieFrom(header, server.url)));
}

/** The admin's sign-in over the API: its answer (the session's cookies, the CSRF token), or an error naming why not. */
async function signInOverApi(url: string): Promise<Response> {
  const login = await fetch(`${url}/api/auth/login/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }) });
  if (!login.ok) throw new Error(`API sign-in failed: ${login.status} ${await login.text()}`);
  return login;
}

/** A Set-Cookie header as Playwright's cookie for `url` (name, value and the attributes the server sets). */
function cookieFrom(header: string, url: string): Parameters<BrowserContext['addCookies']>[0][number] {
  const [pair, ...attributes] = header.split(';').map((part) => part.trim());
  const at = pair!.indexOf('=');
  const flags = new Map(attributes.map((a) => [a.split('=')[0]!.toLowerCase(), a.slice(a.indexOf('=') + 1)] as const));
  const sameSite = flags.get('samesite')?.toLowerCase();
  return {
    name: pair!.slice(0, at),
    value: pair!.slice(at + 1),
    url,
    httpOnly: flags.has('httponly'),
    secure: flags.has('secure'),
    sameSite: sameSite === 'strict' ? 'Strict' : sameSite === 'none' ? 'None' : 'Lax',
    ...(flags.has('max-age') ? { expires: Math.floor(Date.now() / 1000) + Number(flags.get('max-age')) } : {}),
  };
}

/** Signs in through the sign-in form. */
export async function signIn(page: Page, server: WebServer, next = '/'): Promise<void> {
  await page.goto(`${server.url}${next}`);
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password').fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

/**
 * Saves what the page shows as test/web/screenshots/<name>.png, for a person to look at. Not taken when
 * CAIRN_TEST_SCREENSHOTS=0: .ci/run sets it, as nobody looks at the screenshots of a clone CI throws away, and each
 * cost chromium about 0.15 CPU-s (rendering the viewport afresh and encoding it: test/web/ui.test.ts's 21 cost its
 * chromium 18-22 CPU-s instead of 16-17, three runs of each). No test reads them: the tests' checks are on the page.
 */
export async function shot(page: Page, name: string): Promise<void> {
  if (process.env.CAIRN_TEST_SCREENSHOTS === '0') return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });
}

/** Publishes a "new build" to a running server: only build-id.json changes, as after a deploy. */
export function publishBuildId(server: WebServer, buildId: string): void {
  writeFileSync(join(server.webDir, 'build-id.json'), JSON.stringify({ build_id: buildId }) + '\n');
}
