// Deterministic generator of fuzz templates for test/templating/fuzz.test.ts.
//
// Three families, all from a seeded PRNG (same seed, same templates, on every machine):
//   - sandbox probes and resource probes (fixed list, always included);
//   - mutations of corpus templates (insert/delete/duplicate/swap tokens and characters, random
//     delimiters, truncation, splicing two templates, wrapping in deep nesting);
//   - templates assembled from random Jinja tokens.
import { loadCorpus } from './corpus-cases.ts';

export interface FuzzCase {
  id: number;
  family: 'probe' | 'mutation' | 'random';
  /** Probes must never leak the pid or any JavaScript object text (see fuzz-runner.ts). */
  strictMarkers: boolean;
  template: string;
  context: Record<string, unknown>;
}

/** mulberry32: tiny, fast, good enough for fuzzing, and identical everywhere. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const int = (r: Rand, n: number): number => Math.floor(r() * n);
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[int(r, xs.length)] as T;

/** Templates that try to reach JavaScript or Python internals, or to exhaust resources. */
export const PROBES: readonly string[] = [
  "{{ ''.constructor.constructor('return process')() }}",
  "{{ ''.constructor.constructor('return process.pid')() }}",
  "{{ [].constructor.constructor('return globalThis')() }}",
  "{{ {}.constructor.constructor('return this')() }}",
  '{{ cycler.__init__.__globals__ }}',
  '{{ cycler.__init__.__globals__.os.popen("id").read() }}',
  '{{ joiner.constructor }}',
  '{{ [].__class__.__mro__ }}',
  "{{ ''.__class__.__mro__[1].__subclasses__() }}",
  '{{ range.constructor }}',
  "{{ range.constructor('return process')() }}",
  '{{ lipsum.__proto__ }}',
  '{{ lipsum.__globals__ }}',
  "{{ lipsum.call(none, 'x') }}",
  '{{ namespace.__proto__.constructor }}',
  '{{ dict.constructor }}',
  "{{ dict.constructor('return process')() }}",
  '{{ range.toString() }}',
  '{{ lipsum.toString() }}',
  '{{ cycler.toString }}',
  '{{ range.bind }}{{ range.apply }}{{ range.call }}',
  '{{ range.name }}{{ range.length }}{{ range.prototype }}',
  "{{ ''.__proto__ }}{{ ''['__proto__'] }}{{ ''['constructor'] }}",
  "{{ (''|attr('constructor')) }}{{ (''|attr('constructor'))|attr('constructor') }}",
  "{{ ''|attr('__proto__')|attr('constructor') }}",
  "{{ ['a']|map(attribute='constructor')|list }}",
  "{{ ['a']|map(attribute='__proto__')|list }}",
  "{{ [{'a': 1}]|selectattr('constructor')|list }}",
  "{{ [{'a': 1}]|map(attribute='constructor.constructor')|list }}",
  "{{ 'x'|attr('toString') }}{{ 'x'|attr('valueOf') }}",
  "{{ '{0.constructor}'.format('') }}{{ '{0.__proto__}'.format('') }}",
  "{{ '{0.constructor.constructor}'.format([]) }}",
  "{{ '%s'|format(range) }}",
  '{{ range }}|{{ lipsum }}|{{ cycler }}|{{ joiner }}|{{ namespace }}|{{ dict }}',
  '{{ [range, lipsum, cycler, joiner, namespace, dict] }}',
  '{{ range|string }}{{ lipsum|tojson }}',
  '{{ cycler(1).next }}{{ joiner() }}{{ namespace() }}',
  '{% set c = cycler(1) %}{{ c.constructor }}{{ c.__proto__ }}{{ c.items }}',
  '{% set ns = namespace() %}{% set ns.constructor = 1 %}{{ ns.constructor }}',
  "{% set ns = namespace() %}{% set ns.__proto__ = {'polluted': 1} %}{{ ns.polluted }}{{ {}.polluted }}",
  "{% set d = {} %}{% set _ = d.update({'__proto__': {'polluted': 1}}) %}{{ d.polluted }}{{ {}.polluted }}",
  "{% set d = dict(__proto__={'x': 1}) %}{{ d.x }}{{ {}.x }}",
  "{% set d = {'constructor': 'c'} %}{{ d.constructor }}{{ d['constructor'] }}",
  "{% set l = [] %}{{ l.constructor }}{{ l.push }}{{ l.concat }}{{ l.__proto__ }}",
  "{% set l = [] %}{{ l.push(1) }}{{ l }}",
  '{% for k in {} %}{% endfor %}{{ loop }}{{ process }}{{ globalThis }}{{ require }}{{ module }}{{ exports }}',
  "{{ process.mainModule.require('child_process') }}",
  "{{ this }}{{ self }}{{ window }}{{ global }}{{ Function }}{{ eval('1') }}",
  '{% macro m() %}{% endmacro %}{{ m.constructor }}{{ m.__proto__ }}{{ m.call }}{{ m.arguments }}{{ m.caller }}',
  "{% macro m() %}{% endmacro %}{{ m.constructor.constructor('return process')() }}",
  '{% for i in [1] %}{{ loop.constructor }}{{ loop.__proto__ }}{{ loop.cycle.constructor }}{% endfor %}',
  "{% for i in [1] %}{{ loop.cycle.constructor('return process')() }}{% endfor %}",
  "{{ (1).constructor }}{{ (1.5).constructor }}{{ true.constructor }}{{ none.constructor }}",
  "{{ 'abc'.split.constructor }}{{ 'abc'.upper.constructor('return 1') }}",
  "{{ 'abc'.upper.constructor('return process')() }}",
  '{{ caller }}{{ varargs }}{{ kwargs }}{{ __proto__ }}{{ constructor }}{{ toString }}{{ hasOwnProperty }}',
  '{{ __proto__.constructor }}',
  "{{ constructor.constructor('return process')() }}",
  "{{ toString.constructor('return process')() }}",
  '{{ valueOf() }}',
  "{{ ''['sub'] }}{{ ''['at'](0) }}{{ 'abc'.at(0) }}{{ 'abc'.charAt(0) }}{{ 'abc'.localeCompare }}",
  "{{ [1, 2].reduce }}{{ [1, 2].flat() }}{{ [3, 1].toSorted() }}",
  "{{ ''|attr('__class__')|attr('__base__')|attr('__subclasses__') }}",
  "{{ {}|attr('__class__') }}{{ []|attr('__class__') }}",
  "{{ x.constructor }}{{ x.__proto__ }}{{ x['__proto__'] }}{{ x.hasOwnProperty('a') }}",
  "{{ 'Symbol'|attr('iterator') }}{{ x[0] }}",
  // resource probes
  '{% for i in range(100000) %}{% for j in range(100000) %}{{ i }}{% endfor %}{% endfor %}',
  '{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}done',
  '{% for i in range(100001) %}{% endfor %}',
  '{{ range(10000000)|list|length }}',
  '{{ range(0, 10000000000000000000000, 1)|length }}',
  "{{ 'x' * 100000000 }}",
  "{{ 'ab' * 1000000000 }}",
  "{{ 'ab' * 100000000000000000000 }}",
  '{{ [1] * 1000000000 }}',
  '{{ ([1] * 10000000)|length }}',
  '{{ 2 ** 10000000 }}',
  '{{ 10 ** 100000 }}',
  '{{ 9 ** 9 ** 9 }}',
  '{{ 2.0 ** 100000 }}',
  "{{ '%0100000000d'|format(1) }}",
  "{{ '{:>1000000000}'.format('x') }}",
  "{{ 'x'|center(1000000000) }}",
  "{{ 'x'|indent(1000000000, true) }}",
  "{{ ('a ' * 100000)|wordwrap(1) }}",
  "{{ 'x'.ljust(2000000000) }}",
  "{{ 'x'.zfill(2000000000) }}",
  '{{ range(100000)|batch(1)|list|length }}',
  '{{ lipsum(1000000) }}',
  '{{ lipsum(100000, false, 100000, 100001)|length }}',
  '{% macro m(n) %}{{ m(n + 1) }}{% endmacro %}{{ m(0) }}',
  '{% macro m() %}{{ m() }}{{ m() }}{% endmacro %}{{ m() }}',
  '{% macro a() %}{{ b() }}{% endmacro %}{% macro b() %}{{ a() }}{% endmacro %}{{ a() }}',
  '{% macro m(n) %}{% call m(n) %}{% endcall %}{% endmacro %}{{ m(1) }}',
  '{% macro m() %}{{ caller() }}{% endmacro %}{% call m() %}{% call m() %}{% call m() %}x{% endcall %}{% endcall %}{% endcall %}',
  "{% set t = [{'c': []}] %}{% set _ = t[0].c.append(t[0]) %}{% for n in t recursive %}{{ loop(n.c) }}{% endfor %}",
  '{% set l = [] %}{% set _ = l.append(l) %}{{ l }}{{ l|tojson }}',
  '{% set l = [] %}{% set _ = l.append(l) %}{{ l|string }}{{ l|pprint }}',
  "{% set d = {} %}{% set _ = d.update({'d': d}) %}{{ d }}{{ d|dictsort }}{{ d|tojson }}",
  '{% set l = [] %}{% set _ = l.append(l) %}{{ l|list|sort }}{{ l == l }}{{ l|unique|list }}',
  '{% set l = [] %}{% for i in range(30) %}{% set _ = l.extend(l + [i]) %}{% endfor %}{{ l|length }}',
  "{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s|length }}",
  '{% for x in range(99999) %}{% for y in range(99999) if false %}{% endfor %}{% endfor %}',
  '{% for x in range(100000) recursive %}{{ loop(range(100000)) }}{% endfor %}',
  '{% set c = cycler(*range(100000)) %}{{ c.next() }}',
  "{{ ('%s' * 100000) % ((1,) * 100000) }}",
  "{{ '((((((((((((((((((((((((((((((((((((((((((((((((('|length }}",
];

/** Token pool for insertions and random templates. */
const TOKENS: readonly string[] = [
  '{{', '}}', '{%', '%}', '{#', '#}', '{{-', '-}}', '{%-', '-%}', '{%+', '+%}', ' ', '\n', '(', ')', '[', ']', '{',
  '}', ',', ':', '.', '|', '~', '+', '-', '*', '/', '//', '%', '**', '=', '==', '!=', '<', '>', '<=', '>=', 'and',
  'or', 'not', 'in', 'is', 'if', 'else', 'elif', 'endif', 'for', 'endfor', 'set', 'endset', 'macro', 'endmacro',
  'call', 'endcall', 'filter', 'endfilter', 'with', 'endwith', 'raw', 'endraw', 'recursive', 'loop', 'caller',
  'break', 'continue', 'include', 'import', 'extends', 'block', 'endblock', 'true', 'false', 'none', 'None', 'x',
  'y', 'items', 'range', 'lipsum', 'cycler', 'joiner', 'namespace', 'dict', '0', '1', '-1', '3.5', '1e308',
  '100000', '99999999999999999999', "'a'", '"b"', "'", '"', '\\', 'upper', 'join', 'map', 'attribute', 'default',
  'length', 'sort', 'batch', 'slice', 'format', 'tojson', 'indent', 'center', 'wordwrap', 'truncate', 'int',
  'float', 'host', 'cidr', 'network', 'ipv4', 'ipv6', 'defined', 'odd', 'divisibleby', 'constructor', '__proto__',
  '__class__', 'prototype', '__globals__', 'toString', 'valueOf', '*args', '**kw', 'loop.index', 'loop.cycle',
  'varargs', 'kwargs', '\u0000', '\ud800', '🙂', '\r\n', '\t',
];

const CONTEXT: Record<string, unknown> = {
  x: 'value',
  y: [1, 2, 3],
  n: 5,
  items: [
    { name: 'eth0', address: '10.0.0.1/24', vlan: 10 },
    { name: 'eth1', address: '2001:db8::1/64' },
  ],
  d: { a: 1, b: { c: [1, 2] } },
  none: null,
};

function tokenize(src: string): string[] {
  const re = /\{\{-?|-?\}\}|\{%[-+]?|[-+]?%\}|\{#-?|-?#\}|'[^']*'|"[^"]*"|\d+(?:\.\d+)?|[A-Za-z_]\w*|\s+|[\s\S]/g;
  return src.match(re) ?? [];
}

function mutate(r: Rand, src: string, corpus: readonly string[]): string {
  let toks = tokenize(src);
  const rounds = 1 + int(r, 4);
  for (let k = 0; k < rounds; k++) {
    const i = int(r, toks.length + 1);
    switch (int(r, 13)) {
      case 0: // insert a token
        toks.splice(i, 0, pick(r, TOKENS));
        break;
      case 1: // delete a token
        toks.splice(i, 1);
        break;
      case 2: // duplicate a token
        if (toks.length) toks.splice(i, 0, toks[Math.min(i, toks.length - 1)] ?? '');
        break;
      case 3: {
        // swap two tokens
        const j = int(r, toks.length);
        if (toks.length > 1 && i < toks.length) [toks[i], toks[j]] = [toks[j] ?? '', toks[i] ?? ''];
        break;
      }
      case 4: {
        // character-level: delete / insert / replace one character
        const s = toks.join('');
        const p = int(r, s.length + 1);
        const ch = pick(r, ['{', '}', '%', '#', '-', '+', "'", '"', '(', ')', '|', '.', '\\', '\n', 'x', '0']);
        const which = int(r, 3);
        const out = which === 0 ? s.slice(0, p) + s.slice(p + 1) : which === 1 ? s.slice(0, p) + ch + s.slice(p) : s.slice(0, p) + ch + s.slice(p + 1);
        toks = tokenize(out);
        break;
      }
      case 5: // random delimiter
        toks.splice(i, 0, pick(r, ['{{', '}}', '{%', '%}', '{#', '#}', '{%-', '-%}', '{{-', '-}}', '{% raw %}', '{% endraw %}']));
        break;
      case 6: // truncate
        toks = toks.slice(0, i);
        break;
      case 7: {
        // splice in a chunk of another corpus template
        const other = tokenize(pick(r, corpus));
        const a = int(r, other.length + 1);
        toks.splice(i, 0, ...other.slice(a, a + 1 + int(r, 12)));
        break;
      }
      case 8: {
        // wrap in nesting
        const depth = 1 + int(r, 60);
        const kind = int(r, 4);
        const open = kind === 0 ? '{% if true %}' : kind === 1 ? '{% for _i in [1] %}' : kind === 2 ? '{% filter upper %}' : '{% with q = 1 %}';
        const close = kind === 0 ? '{% endif %}' : kind === 1 ? '{% endfor %}' : kind === 2 ? '{% endfilter %}' : '{% endwith %}';
        toks = [open.repeat(depth), ...toks, close.repeat(depth)];
        break;
      }
      case 9: // replace a token by a sandbox-sensitive name
        if (i < toks.length) toks[i] = pick(r, ['constructor', '__proto__', '__class__', 'prototype', 'toString', '__globals__', 'process']);
        break;
      case 10: // swap a number for an extreme one
        toks = toks.map((t) => (/^\d+$/.test(t) && r() < 0.5 ? pick(r, ['0', '-1', '100000', '1e308', '99999999999999999999', '2 ** 64']) : t));
        break;
      case 11: {
        // duplicate a whole span
        const j = i + int(r, 20);
        toks.splice(j, 0, ...toks.slice(i, j));
        break;
      }
      default: // insert a random expression
        toks.splice(i, 0, `{{ ${randomExpr(r, 3)} }}`);
    }
  }
  return toks.join('');
}

const IDENT_SWAPS: readonly string[] = [
  'upper', 'lower', 'length', 'first', 'last', 'sort', 'reverse', 'unique', 'list', 'string', 'int', 'float', 'join',
  'sum', 'max', 'min', 'tojson', 'pprint', 'trim', 'title', 'capitalize', 'items', 'dictsort', 'batch', 'slice',
  'host', 'cidr', 'network', 'netmask', 'wildcard', 'prefixlen', 'ipv4', 'ipv6', 'odd', 'even', 'defined',
  'undefined', 'none', 'string', 'mapping', 'iterable', 'loop', 'caller', 'varargs', 'kwargs', 'x', 'y', 'n', 'd',
  'items', 'missing', 'true', 'false', 'range', 'namespace', 'cycler', 'joiner', 'lipsum', 'dict', 'index',
  'revindex', 'cycle', 'changed', 'previtem', 'nextitem', 'depth', 'name', 'address', 'vlan', 'append', 'pop',
  'get', 'keys', 'values', 'split', 'replace', 'format', 'center', 'indent', 'wordwrap', 'truncate', 'urlize',
  'xmlattr', 'groupby', 'map', 'select', 'reject', 'selectattr', 'rejectattr', 'attr', 'default', 'abs', 'round',
];
const NUMBER_SWAPS: readonly string[] = ['0', '1', '2', '-1', '3.5', '0.0', '100000', '1e308', '99999999999999999999', '7'];
const STRING_SWAPS: readonly string[] = ["''", "'a'", "'10.0.0.1/24'", "'2001:db8::1'", "'%s'", "'{}'", "'\\'", "'🙂'", "'<b>'", "'x y z'"];

const KEYWORDS = new Set(['if', 'elif', 'else', 'endif', 'for', 'endfor', 'in', 'is', 'not', 'and', 'or', 'set', 'endset', 'macro', 'endmacro', 'call', 'endcall', 'filter', 'endfilter', 'with', 'endwith', 'raw', 'endraw', 'recursive', 'block', 'endblock', 'include', 'import', 'from', 'extends', 'as', 'break', 'continue']);

/** One small change that usually keeps the template syntactically valid, so the runtime gets exercised. */
function gentleMutate(r: Rand, src: string): string {
  const toks = tokenize(src);
  const rounds = 1 + int(r, 3);
  for (let k = 0; k < rounds; k++) {
    const candidates = toks.map((t, i) => [t, i] as const).filter(([t]) => !KEYWORDS.has(t) && /^(?:[A-Za-z_]\w*|\d+(?:\.\d+)?|'[^']*'|"[^"]*")$/.test(t));
    if (candidates.length === 0) break;
    const [tok, i] = pick(r, candidates);
    if (/^\d/.test(tok)) toks[i] = pick(r, NUMBER_SWAPS);
    else if (/^['"]/.test(tok)) toks[i] = pick(r, STRING_SWAPS);
    else if (r() < 0.1) toks[i] = pick(r, NUMBER_SWAPS);
    else toks[i] = pick(r, IDENT_SWAPS);
  }
  return toks.join('');
}

function randomExpr(r: Rand, depth: number): string {
  if (depth <= 0 || r() < 0.3)
    return pick(r, ['x', 'y', 'n', 'd', 'd.a', 'd.b.c', 'items', 'missing', '1', '2.5', "'s'", 'none', 'true', '[1, 2]', "{'k': 1}", 'range(3)', 'loop', "'10.0.0.1/24'"]);
  const a = randomExpr(r, depth - 1);
  const b = randomExpr(r, depth - 1);
  switch (int(r, 10)) {
    case 0:
      return `${a} ${pick(r, ['+', '-', '*', '/', '//', '%', '**', '~', '==', '<', 'and', 'or', 'in', 'not in'])} ${b}`;
    case 1:
      return `${a}|${pick(r, ['upper', 'length', 'list', 'join', 'first', 'last', 'sort', 'reverse', 'string', 'int', 'float', 'tojson', 'pprint', 'unique', 'sum', 'max', 'title', 'trim', 'host', 'cidr', 'network', 'prefixlen', 'dictsort', 'items', 'batch(2)', 'slice(2)', 'indent(2)', "default('z')", "map('upper')", "select('odd')", "join(',')", "attr('a')", "format(1)", 'wordcount', 'urlize', 'urlencode', 'xmlattr', 'filesizeformat', 'random'])}`;
    case 2:
      return `${a} is ${pick(r, ['defined', 'odd', 'string', 'mapping', 'ipv4', 'ipv6', 'none', 'iterable', 'callable', 'divisibleby 2', 'in [1]', 'eq 1'])}`;
    case 3:
      return `(${a})`;
    case 4:
      return `[${a}, ${b}]`;
    case 5:
      return `${a}[${b}]`;
    case 6:
      return `${a}.${pick(r, ['a', 'b', 'upper()', 'split()', 'items()', 'get(1)', 'keys()', 'constructor', '__class__', 'length', 'append(1)', 'pop()', 'format(1)'])}`;
    case 7:
      return `${b} if ${a} else ${b}`;
    case 8:
      return `not ${a}`;
    default:
      return `{${a}: ${b}}`;
  }
}

function randomTemplate(r: Rand): string {
  const parts: string[] = [];
  const n = 1 + int(r, 25);
  for (let i = 0; i < n; i++) {
    const roll = r();
    if (roll < 0.55) parts.push(pick(r, TOKENS));
    else if (roll < 0.75) parts.push(`{{ ${randomExpr(r, 3)} }}`);
    else if (roll < 0.85) parts.push(`{% if ${randomExpr(r, 2)} %}`);
    else if (roll < 0.92) parts.push(`{% for v in ${randomExpr(r, 2)} %}{{ v }}`);
    else parts.push(pick(r, ['{% endif %}', '{% endfor %}', '{% else %}', '{% set z = 1 %}', 'text', '\n']));
  }
  return parts.join(r() < 0.5 ? ' ' : '');
}

/** Builds `total` cases (at least all probes) from `seed`. */
export function buildFuzzCases(seed: number, total: number): FuzzCase[] {
  const r = prng(seed);
  const corpusCases = loadCorpus();
  const corpus = corpusCases.map((c) => c.template);
  const cases: FuzzCase[] = [];
  for (const t of PROBES) cases.push({ id: cases.length, family: 'probe', strictMarkers: true, template: t, context: CONTEXT });
  // Deep nesting of every kind, independent of the PRNG.
  for (const depth of [100, 1000, 5000]) {
    const nest: string[] = [
      '('.repeat(depth) + '1' + ')'.repeat(depth),
      '['.repeat(depth) + ']'.repeat(depth),
      '{% if true %}'.repeat(depth) + 'x' + '{% endif %}'.repeat(depth),
      '{% for i in [1] %}'.repeat(depth) + '{{ loop.depth }}' + '{% endfor %}'.repeat(depth),
      'not '.repeat(depth) + '1',
      '-'.repeat(depth) + '1',
      '1' + ' + 1'.repeat(depth),
      "'a'" + '|upper'.repeat(depth),
      'x' + '.a'.repeat(depth),
      '{% macro m() %}'.repeat(depth) + '{% endmacro %}'.repeat(depth),
      '{% filter upper %}'.repeat(depth) + 'x' + '{% endfilter %}'.repeat(depth),
      '{% set a %}'.repeat(depth) + 'x' + '{% endset %}'.repeat(depth),
    ];
    for (const body of nest) {
      const template = body.startsWith('{%') ? body : `{{ ${body} }}`;
      cases.push({ id: cases.length, family: 'probe', strictMarkers: true, template, context: CONTEXT });
    }
  }
  while (cases.length < total) {
    const roll = r();
    if (roll < 0.8) {
      const base = pick(r, corpusCases);
      const template = r() < 0.45 ? gentleMutate(r, base.template) : mutate(r, base.template, corpus);
      cases.push({ id: cases.length, family: 'mutation', strictMarkers: false, template, context: { ...CONTEXT, ...base.context } });
    } else {
      cases.push({ id: cases.length, family: 'random', strictMarkers: false, template: randomTemplate(r), context: CONTEXT });
    }
  }
  return cases;
}
