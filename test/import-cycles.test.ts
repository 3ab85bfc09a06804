// Imports flow one way (ARCHITECTURE.md): domain → core → db, and in the UI app → pages, never back. A cycle
// anywhere in src/ or web/src/ fails here with its path. Relative imports only (packages cannot import us back);
// static, type-only and dynamic imports all count, as they all tie two modules together.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function modules(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : modules(full);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [full] : [];
  });
}

function graph(dir: string): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const file of modules(dir)) {
    const text = readFileSync(file, 'utf8');
    const targets: string[] = [];
    for (const m of text.matchAll(IMPORT)) {
      const target = resolve(dirname(file), m[1] ?? m[2]!);
      if (existsSync(target)) targets.push(target);
    }
    edges.set(file, targets);
  }
  return edges;
}

/** The first cycle found by a depth-first walk, as a list of files, or null. */
function findCycle(edges: Map<string, string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === 'open') return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const found = visit(next);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of edges.keys()) {
    if (state.has(node)) continue;
    const found = visit(node);
    if (found) return found;
  }
  return null;
}

for (const dir of ['src', 'web/src']) {
  it(`${dir}: no import cycle`, () => {
    const cycle = findCycle(graph(join(ROOT, dir)));
    expect(cycle?.map((f) => relative(ROOT, f)).join(' → ') ?? null).toBeNull();
  });
}

it('src/core imports only the core and the database layer (domain → core → db)', () => {
  const core = join(ROOT, 'src/core');
  const allowed = [core, join(ROOT, 'src/db')];
  // The process configuration is read by everyone and imports nothing of ours.
  const leaves = [join(ROOT, 'src/config.ts')];
  const outward = [...graph(core)].flatMap(([file, targets]) =>
    targets.filter((t) => !leaves.includes(t) && !allowed.some((dir) => t.startsWith(`${dir}/`))).map((t) => `${relative(ROOT, file)} → ${relative(ROOT, t)}`),
  );
  expect(outward).toEqual([]);
});

it('finds a cycle when there is one (the check itself works)', () => {
  const a = '/x/a.ts';
  const b = '/x/b.ts';
  expect(findCycle(new Map([[a, [b]], [b, [a]]]))).toEqual([a, b, a]);
  expect(findCycle(new Map([[a, [b]], [b, []]]))).toBeNull();
});
