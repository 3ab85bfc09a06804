// `npm start` (cairn serve) builds the UI only when it is missing, only into the repository's web/dist, and only
// where Vite is installed. The decision is checked on its own (no second full UI build in CI); ensureWebBuild is
// run for real on directories where it must not build.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collectStatic, ensureWebBuild, webBuildDecision } from './web-ui.ts';
import { webSourcesHash } from './web-sources.ts';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'cairn-webui-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('webBuildDecision', () => {
  const root = '/srv/cairn';
  const vite = '/srv/cairn/node_modules/vite/bin/vite.js';
  const files = (...present: string[]) => (p: string) => present.includes(p);

  it('serves a built UI without building', () => {
    expect(webBuildDecision('/srv/cairn/web/dist', root, files('/srv/cairn/web/dist/index.html', vite))).toEqual({ action: 'serve' });
  });

  it('builds the repository web/dist when index.html is missing and Vite is installed', () => {
    expect(webBuildDecision('/srv/cairn/web/dist', root, files(vite))).toEqual({ action: 'build', vite });
    expect(webBuildDecision('/srv/cairn/web/dist/', root, files(vite))).toEqual({ action: 'build', vite });
  });

  it('does not build without Vite (a release) and says the API still works', () => {
    const d = webBuildDecision('/srv/cairn/web/dist', root, files());
    expect(d).toEqual({ action: 'skip', problem: 'The web UI is not built (/srv/cairn/web/dist/index.html is missing); the API still works.' });
  });

  it('never builds into a CAIRN_WEB_DIR outside the repository', () => {
    expect(webBuildDecision('/tmp/elsewhere', root, files(vite)).action).toBe('skip');
  });
});

describe('ensureWebBuild', () => {
  it('leaves a directory with index.html alone', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'index.html'), '<!doctype html>');
    expect(ensureWebBuild(dir)).toBeNull();
  });

  it('answers the problem for an empty directory outside the repository and writes nothing there', () => {
    const dir = join(tempDir(), 'dist');
    mkdirSync(dir);
    expect(ensureWebBuild(dir)).toMatch(/index\.html is missing\); the API still works/);
    expect(ensureWebBuild(dir)).toContain(dir);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('collectStatic (`cairn maintenance collectstatic`)', () => {
  /** A checkout with UI sources, Vite "installed", and a build of the given sources fingerprint. */
  function checkout(builtFrom: 'current' | 'stale' | 'none'): { root: string; dist: string } {
    const root = tempDir();
    mkdirSync(join(root, 'web/src'), { recursive: true });
    writeFileSync(join(root, 'web/src/main.tsx'), 'export const page = 1;\n');
    mkdirSync(join(root, 'node_modules/vite/bin'), { recursive: true });
    writeFileSync(join(root, 'node_modules/vite/bin/vite.js'), '');
    const dist = join(root, 'web/dist');
    if (builtFrom !== 'none') {
      mkdirSync(dist, { recursive: true });
      writeFileSync(join(dist, 'index.html'), '<html></html>');
      const sources = builtFrom === 'current' ? webSourcesHash(root) : 'f'.repeat(64);
      writeFileSync(join(dist, 'build-id.json'), JSON.stringify({ build_id: 'b1', sources }));
    }
    return { root, dist };
  }
  const builder = (root: string, builds: string[]) => (vite: string) => {
    builds.push(vite);
    writeFileSync(join(root, 'web/dist/build-id.json'), JSON.stringify({ build_id: 'b2', sources: webSourcesHash(root) }));
    return true;
  };

  it('does nothing, and says so, when the build is of the current sources', () => {
    const { root, dist } = checkout('current');
    const builds: string[] = [];
    expect(collectStatic(dist, root, builder(root, builds))).toEqual({ status: 'current', message: `The web UI in ${dist} is current (build b1); nothing to do.` });
    expect(builds).toEqual([]);
  });

  it('rebuilds when a source changed since the last build, and is current after', () => {
    const { root, dist } = checkout('current');
    writeFileSync(join(root, 'web/src/main.tsx'), 'export const page = 2;\n');
    const builds: string[] = [];
    const outcome = collectStatic(dist, root, builder(root, builds));
    expect(outcome.status).toBe('built');
    expect(outcome.message).toContain('build b2');
    expect(builds).toEqual([join(root, 'node_modules/vite/bin/vite.js')]);
    expect(collectStatic(dist, root, builder(root, builds)).status).toBe('current');
    expect(builds).toHaveLength(1);
    const stale = checkout('stale');
    expect(collectStatic(stale.dist, stale.root, () => false)).toMatchObject({ status: 'failed', message: expect.stringContaining('Building the web UI failed') });
  });

  it('leaves a release (no sources) alone and refuses a UI folder outside the checkout', () => {
    const release = tempDir();
    mkdirSync(join(release, 'web/dist'), { recursive: true });
    writeFileSync(join(release, 'web/dist/index.html'), '<html></html>');
    expect(collectStatic(join(release, 'web/dist'), release).status).toBe('shipped');
    const { root } = checkout('none');
    expect(collectStatic(tempDir(), root, () => true)).toMatchObject({ status: 'failed', message: expect.stringContaining('CAIRN_WEB_DIR') });
  });
});

