// Loads the Jinja2 compatibility corpus (test/templating/corpus/*.json).
//
// Each case: { name, template, context, options: { trim_blocks?, lstrip_blocks?, keep_trailing_newline?, immutable?,
// random_seed? },
// expected } or { ..., error: <kind> }. Expected outputs and error kinds are written by
// scripts/jinja-reference.py from Python's Jinja2 (SandboxedEnvironment); never edit them by hand.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CORPUS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'corpus');
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Error kinds the reference script records (see scripts/jinja-reference.py). */
export type CorpusErrorKind = 'syntax' | 'undefined' | 'security' | 'type' | 'limit' | 'unavailable';
const ERROR_KINDS: readonly string[] = ['syntax', 'undefined', 'security', 'type', 'limit', 'unavailable'];

export interface CorpusOptions {
  trim_blocks?: boolean;
  lstrip_blocks?: boolean;
  keep_trailing_newline?: boolean;
  /** ImmutableSandboxedEnvironment in Python, `immutable` in Cairn. */
  immutable?: boolean;
  /** random.seed(n) before the render in Python, `randomSeed` in Cairn. */
  random_seed?: number;
}

export interface CorpusCase {
  file: string;
  name: string;
  template: string;
  context: Record<string, unknown>;
  options: CorpusOptions;
  expected?: string;
  error?: CorpusErrorKind;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseCase(file: string, index: number, raw: unknown): CorpusCase {
  const where = `${file}[${index}]`;
  if (!isRecord(raw)) throw new Error(`${where}: a case must be an object`);
  const { name, template, context, options, expected, error } = raw;
  if (typeof name !== 'string' || name === '') throw new Error(`${where}: missing name`);
  if (typeof template !== 'string') throw new Error(`${where} ${name}: template must be a string`);
  if (context !== undefined && !isRecord(context)) throw new Error(`${where} ${name}: context must be an object`);
  if (options !== undefined && !isRecord(options)) throw new Error(`${where} ${name}: options must be an object`);
  const opts: CorpusOptions = {};
  for (const [k, v] of Object.entries(options ?? {})) {
    if (k === 'random_seed') {
      if (!Number.isSafeInteger(v)) throw new Error(`${where} ${name}: option random_seed must be an integer`);
      opts.random_seed = v as number;
      continue;
    }
    if (k !== 'trim_blocks' && k !== 'lstrip_blocks' && k !== 'keep_trailing_newline' && k !== 'immutable')
      throw new Error(`${where} ${name}: unknown option ${k}`);
    if (typeof v !== 'boolean') throw new Error(`${where} ${name}: option ${k} must be a boolean`);
    opts[k] = v;
  }
  const c: CorpusCase = { file, name, template, context: context ?? {}, options: opts };
  if (typeof expected === 'string' && error === undefined) c.expected = expected;
  else if (typeof error === 'string' && expected === undefined && ERROR_KINDS.includes(error))
    c.error = error as CorpusErrorKind;
  else throw new Error(`${where} ${name}: needs exactly one of "expected" (string) or "error" (known kind)`);
  return c;
}

/** Every case of every corpus file, in file then case order. Throws on a malformed file or duplicate name. */
export function loadCorpus(): CorpusCase[] {
  const files = readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const cases: CorpusCase[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    const data: unknown = JSON.parse(readFileSync(join(CORPUS_DIR, file), 'utf8'));
    if (!Array.isArray(data)) throw new Error(`${file}: top level must be an array of cases`);
    data.forEach((raw: unknown, i: number) => {
      const c = parseCase(file, i, raw);
      if (seen.has(c.name)) throw new Error(`${file}: duplicate case name ${c.name}`);
      seen.add(c.name);
      cases.push(c);
    });
  }
  return cases;
}

/** Maps corpus options (Jinja2 spelling) to the engine's environment options. */
export function engineOptions(o: CorpusOptions): {
  trimBlocks: boolean;
  lstripBlocks: boolean;
  keepTrailingNewline: boolean;
  immutable: boolean;
  randomSeed: number | null;
} {
  return {
    trimBlocks: o.trim_blocks ?? false,
    lstripBlocks: o.lstrip_blocks ?? false,
    keepTrailingNewline: o.keep_trailing_newline ?? false,
    immutable: o.immutable ?? false,
    randomSeed: o.random_seed ?? null,
  };
}
