// Imports flow one way (ARCHITECTURE.md): domain → core → db, and in the UI app → pages, never back. A cycle
// anywhere in src/ or web/src/ fails here with its path. Relative imports only (packages cannot import us back);
// static, type-only and dynamic imports all count, as they all tie two modules together.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
// `import … from`, `export … from`, `import('…')` and the bare `import '…'` that registers what a module defines.
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"](\.[^'"]+)['"]/g;

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
      const target = resolve(dirname(file), m[1] ?? m[2] ?? m[3]!);
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

// Which room of src/ may import which (a file at the top of src/ is a room of its own). The directions form no
// cycle, so a reader can learn the rooms bottom-up: db, core, then the domains, then the app that assembles them.
// A new arrow is a design decision: add it here, in the direction the layers already go, or the test fails.
const ALLOWED: Record<string, string[]> = {
  'config.ts': [],
  'version.ts': [],
  db: ['config.ts'],
  core: ['config.ts', 'db'],
  install: ['config.ts', 'db'],
  jobs: ['config.ts', 'core', 'db'],
  extras: ['core', 'db', 'jobs'],
  search: ['core', 'db', 'jobs'],
  organization: ['core', 'extras'],
  ipam: ['core', 'db', 'extras', 'organization'],
  dcim: ['core', 'db', 'extras', 'ipam', 'organization'],
  circuits: ['core', 'db', 'dcim', 'extras', 'organization'],
  routing: ['core', 'db', 'ipam'],
  virtualization: ['core', 'dcim', 'extras', 'ipam', 'organization'],
  wireless: ['core', 'dcim', 'organization'],
  vpn: ['core', 'organization'],
  lifecycle: ['core', 'db', 'dcim', 'jobs'],
  monitoring: ['core', 'db', 'dcim', 'jobs'],
  compliance: ['core', 'db', 'dcim', 'jobs', 'lifecycle', 'virtualization'],
  templating: ['config.ts', 'core', 'db', 'dcim', 'extras', 'routing'],
  automation: ['core', 'db', 'extras', 'jobs', 'templating', 'version.ts'],
  'netbox-api': ['core', 'db', 'dcim', 'ipam', 'templating'],
  'netbox-import': ['core', 'db', 'dcim', 'ipam', 'templating'],
  'models.ts': ['automation', 'circuits', 'compliance', 'core', 'dcim', 'extras', 'ipam', 'lifecycle', 'monitoring', 'organization', 'routing', 'search', 'templating', 'virtualization', 'vpn', 'wireless'],
  system: ['config.ts', 'core', 'db', 'install', 'ipam', 'jobs', 'models.ts', 'organization', 'search', 'version.ts'],
  upgrade: ['config.ts', 'core', 'db', 'install', 'jobs', 'system', 'version.ts'],
  'background.ts': ['automation', 'compliance', 'extras', 'lifecycle', 'monitoring', 'search', 'system', 'upgrade'],
  'routes.ts': ['automation', 'compliance', 'dcim', 'extras', 'ipam', 'jobs', 'lifecycle', 'monitoring', 'search', 'system', 'templating', 'upgrade'],
  'app.ts': ['background.ts', 'config.ts', 'core', 'db', 'models.ts', 'netbox-api', 'routes.ts', 'system', 'templating', 'version.ts'],
  'server.ts': ['app.ts', 'background.ts', 'config.ts', 'core', 'db', 'jobs', 'system', 'upgrade'],
  'main.ts': ['app.ts', 'background.ts', 'config.ts', 'core', 'db', 'jobs', 'models.ts', 'netbox-import', 'search', 'server.ts', 'system', 'templating', 'upgrade', 'version.ts'],
};

/** The room of a file under src/: its first folder, or the file itself at the top. */
function roomOf(file: string): string {
  return relative(join(ROOT, 'src'), file).split('/')[0]!;
}

it('src/: every import between rooms goes a written direction, and the directions have no cycle', () => {
  const src = join(ROOT, 'src');
  const unwritten = new Set<string>();
  for (const [file, targets] of graph(src)) {
    for (const target of targets) {
      if (!target.startsWith(`${src}/`)) continue;
      const [from, to] = [roomOf(file), roomOf(target)];
      if (from !== to && !ALLOWED[from]?.includes(to)) unwritten.add(`${from} → ${to} (${relative(ROOT, file)} imports ${relative(ROOT, target)})`);
    }
  }
  expect([...unwritten]).toEqual([]);
  const rooms = new Map(Object.entries(ALLOWED).map(([room, to]) => [room, to]));
  expect(findCycle(rooms)).toBeNull();
});

it('migrations import nothing of src/ outside src/db (an old migration must not change when today\'s code does)', () => {
  const db = join(ROOT, 'src/db');
  const outward = [...graph(join(db, 'migrations'))].flatMap(([file, targets]) =>
    targets.filter((t) => !t.startsWith(`${db}/`)).map((t) => `${relative(ROOT, file)} → ${relative(ROOT, t)}`),
  );
  expect(outward).toEqual([]);
});

it('finds a cycle when there is one (the check itself works)', () => {
  const a = '/x/a.ts';
  const b = '/x/b.ts';
  expect(findCycle(new Map([[a, [b]], [b, [a]]]))).toEqual([a, b, a]);
  expect(findCycle(new Map([[a, [b]], [b, []]]))).toBeNull();
});
