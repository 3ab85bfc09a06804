// Serves the built web UI (web/dist) at `/`: hashed assets are cached for good, index.html and build-id.json
// never are (a tab polls build-id.json to notice a newer build), and any other non-API path answers
// index.html so the browser's router can take it. `cairn serve` builds the UI first when it is missing and the
// build tools are installed (a release ships web/dist already built).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { webSourcesHash } from './web-sources.ts';

const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** Where the built UI lives; CAIRN_WEB_DIR points elsewhere (tests serve a copy they can change). */
export function webDistDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CAIRN_WEB_DIR ? resolve(env.CAIRN_WEB_DIR) : join(REPO_ROOT, 'web', 'dist');
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'";

export type WebBuildDecision = { action: 'serve' } | { action: 'build'; vite: string } | { action: 'skip'; problem: string };

/**
 * Whether `cairn serve` must build the UI first: only when index.html is missing, only into the repository's own
 * web/dist (a CAIRN_WEB_DIR elsewhere is someone else's copy), and only where the build tools are installed (a
 * release ships web/dist built and has no Vite).
 */
export function webBuildDecision(dir: string, repoRoot = REPO_ROOT, exists: (path: string) => boolean = existsSync): WebBuildDecision {
  if (exists(join(dir, 'index.html'))) return { action: 'serve' };
  const vite = join(repoRoot, 'node_modules', 'vite', 'bin', 'vite.js');
  if (resolve(dir) !== join(repoRoot, 'web', 'dist') || !exists(vite)) return { action: 'skip', problem: `The web UI is not built (${dir}/index.html is missing); the API still works.` };
  return { action: 'build', vite };
}

/** Builds web/dist with Vite when index.html is missing; returns a message when it cannot. */
export function ensureWebBuild(dir = webDistDir()): string | null {
  const decision = webBuildDecision(dir);
  if (decision.action === 'serve') return null;
  if (decision.action === 'skip') return decision.problem;
  console.log('Building the web UI (web/dist is missing)…');
  return buildWebUi(decision.vite) ? null : 'Building the web UI failed; the API still works. Run `npm run build` to see why.';
}

function buildWebUi(vite: string): boolean {
  return spawnSync(process.execPath, [vite, 'build', '--config', join(REPO_ROOT, 'web', 'vite.config.ts')], { cwd: REPO_ROOT, stdio: 'inherit' }).status === 0;
}

export type CollectStaticOutcome = { status: 'current' | 'built' | 'shipped' | 'failed'; message: string };

/**
 * `cairn maintenance collectstatic`: rebuilds the served UI when its sources changed since the last build
 * (web/dist/build-id.json keeps their fingerprint); says so and does nothing when it is current. A release
 * ships its UI built and has no sources or Vite to rebuild with.
 */
export function collectStatic(dir = webDistDir(), repoRoot = REPO_ROOT, build: (vite: string) => boolean = buildWebUi): CollectStaticOutcome {
  const sources = webSourcesHash(repoRoot);
  const vite = join(repoRoot, 'node_modules', 'vite', 'bin', 'vite.js');
  if (sources === null || !existsSync(vite)) {
    return existsSync(join(dir, 'index.html'))
      ? { status: 'shipped', message: `This install serves the UI it was shipped with (${dir}); there is nothing to rebuild here.` }
      : { status: 'failed', message: `The web UI is missing (${dir}/index.html) and this install has no sources or Vite to build it: reinstall the release.` };
  }
  if (resolve(dir) !== join(repoRoot, 'web', 'dist')) return { status: 'failed', message: `CAIRN_WEB_DIR points at ${dir}, outside this checkout: build into web/dist with npm run build and copy it there.` };
  const built = readBuildId(dir);
  if (built?.sources === sources && existsSync(join(dir, 'index.html'))) {
    return { status: 'current', message: `The web UI in ${dir} is current (build ${built.build_id}); nothing to do.` };
  }
  console.log(built ? 'The web UI sources changed since the last build: rebuilding…' : 'Building the web UI…');
  if (!build(vite)) return { status: 'failed', message: 'Building the web UI failed (the output above says why); the UI served is unchanged.' };
  return { status: 'built', message: `Built the web UI into ${dir} (build ${readBuildId(dir)?.build_id ?? 'unknown'}); open tabs pick it up on their next check.` };
}

function readBuildId(dir: string): { build_id: string; sources?: string | null } | null {
  try {
    return JSON.parse(readFileSync(join(dir, 'build-id.json'), 'utf8')) as { build_id: string; sources?: string | null };
  } catch {
    return null;
  }
}

async function sendFile(reply: FastifyReply, file: string, cacheControl: string): Promise<FastifyReply> {
  const body = await readFile(file);
  reply.header('Cache-Control', cacheControl).type(TYPES[extname(file)] ?? 'application/octet-stream');
  if (extname(file) === '.html') reply.header('Content-Security-Policy', CSP).header('X-Content-Type-Options', 'nosniff');
  return reply.send(body);
}

/** The file under `dir` a URL path names, or null when it escapes the directory or is not a file. */
async function fileFor(dir: string, urlPath: string): Promise<string | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  const file = normalize(join(dir, decoded));
  if (!file.startsWith(dir + sep)) return null;
  try {
    return (await stat(file)).isFile() ? file : null;
  } catch {
    return null;
  }
}

export function registerWebUi(app: FastifyInstance, dir = webDistDir()): void {
  const index = join(dir, 'index.html');
  app.get('/*', { schema: { hide: true } }, async (req, reply) => {
    const path = req.url.split('?')[0]!;
    // Unknown API paths stay JSON 404s; they must never turn into the HTML page.
    if (path === '/api' || path.startsWith('/api/')) return reply.code(404).send({ detail: 'Not found.' });
    if (path.startsWith('/assets/')) {
      const file = await fileFor(dir, path);
      if (!file) return reply.code(404).send({ detail: 'Not found.' });
      // Vite names every asset after its content hash, so a URL never changes meaning.
      return sendFile(reply, file, 'public, max-age=31536000, immutable');
    }
    const file = path === '/' ? null : await fileFor(dir, path);
    if (file) return sendFile(reply, file, 'no-cache');
    if (!existsSync(index)) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The Cairn web UI is not built. Run `npm run build` (or restart `cairn serve`, which builds it); the API is at /api/.');
    }
    // Every client-side route answers the app shell; the router draws the page.
    return sendFile(reply, index, 'no-cache');
  });
}
