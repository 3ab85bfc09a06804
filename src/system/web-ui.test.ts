// `npm start` (cairn serve) builds the UI only when it is missing, only into the repository's web/dist, and only
// where Vite is installed. The decision is checked on its own (no second full UI build in CI); ensureWebBuild is
// run for real on directories where it must not build.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureWebBuild, webBuildDecision } from './web-ui.ts';

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
