import { describe, expect, it } from 'vitest';
import {
  Environment,
  PyFloat,
  TEMPLATE_OBJECT,
  TemplateError,
  TemplateSyntaxError,
  UNDEFINED,
  createEnvironment,
  type TemplateObject,
} from './index.ts';

const env = createEnvironment();
const render = (src: string, ctx: Record<string, unknown> = {}): Promise<string> => env.compile(src).render(ctx);
async function failure(src: string, ctx: Record<string, unknown> = {}, e: Environment = env): Promise<TemplateError> {
  try {
    await e.compile(src).render(ctx);
  } catch (err) {
    expect(err).toBeInstanceOf(TemplateError);
    return err as TemplateError;
  }
  throw new Error(`expected ${src} to fail`);
}

function host(fields: Record<string, unknown>, async = true): TemplateObject {
  return {
    [TEMPLATE_OBJECT]: true,
    getAttr: (name) => {
      const v = Object.hasOwn(fields, name) ? fields[name] : UNDEFINED;
      return async ? Promise.resolve(v) : v;
    },
  };
}

describe('printing and expressions', () => {
  it('prints values as Python does', async () => {
    expect(await render("{{ none }} {{ true }} {{ 1.0 }} {{ 4 / 2 }} {{ ['a', 'b'] }} {{ {'a': 1} }} {{ (1,) }}")).toBe(
      "None True 1.0 2.0 ['a', 'b'] {'a': 1} (1,)",
    );
    expect(await render('{{ 1e16 }} {{ 1e-5 }} {{ 0.1 + 0.2 }} {{ 7 // -2 }} {{ -7 % 3 }}')).toBe(
      '1e+16 1e-05 0.30000000000000004 -4 2',
    );
    expect(await render('{{ x }}', { x: new PyFloat(3) })).toBe('3.0');
    expect(await render(`{{ ["it's", 'a"b'] }}`)).toBe(`["it's", 'a"b']`);
  });

  it('formats with % and str.format', async () => {
    expect(await render("{{ '%05.2f|%-5s|%d' % (3.14159, 'ab', 3.9) }}")).toBe('03.14|ab   |3');
    expect(await render("{{ '{:>6}|{:,}'.format('x', 1234567) }}")).toBe('     x|1,234,567');
  });

  it('keeps Python int precision beyond 2^53', async () => {
    expect(await render('{{ 2 ** 64 }} {{ 2 ** 53 + 1 }} {{ (10 ** 30) // 7 }} {{ -(2 ** 60) % 7 }} {{ (2 ** 64)|abs }}')).toBe(
      '18446744073709551616 9007199254740993 142857142857142857142857142857 6 18446744073709551616',
    );
    expect(await render("{{ 2 ** 64 == 2.0 ** 64 }} {{ {2 ** 64: 'a'}[2.0 ** 64] }} {{ '%d|%x' % (2 ** 70, 2 ** 70) }}")).toBe(
      'True a 1180591620717411303424|400000000000000000',
    );
    // Python 3.11 refuses to print ints of more than 4300 digits; ours fails the same way, typed, not with a RangeError.
    expect((await failure("{{ '%d' % (10 ** 100000) }}")).message).toMatch(/4300 digits/);
    expect((await failure('{{ 10 ** 5000 }}')).message).toMatch(/4300 digits/);
    expect((await failure('{{ 10 ** 100000000 }}')).kind).toBe('limit');
  });

  it('uses Python key equality in dicts', async () => {
    expect(await render("{{ {1: 'a', 1.0: 'b', true: 'c'} }} {{ {true: 1} }} {{ {1.0: 2}[1] }}")).toBe("{1: 'c'} {True: 1} 2");
  });

  it('undefined prints empty, attributes of undefined raise', async () => {
    expect(await render('[{{ missing }}]')).toBe('[]');
    const err = await failure('\n{{ missing.attr }}');
    expect(err.kind).toBe('undefined');
    expect(err.lineno).toBe(2);
  });
});

describe('statements', () => {
  it('loops with the loop object, else, filters, recursion and break', async () => {
    expect(await render('{% for x in [3,4,5] if x > 3 %}{{ loop.index }}/{{ loop.length }}{{ "," if not loop.last }}{% else %}-{% endfor %}')).toBe('1/2,2/2');
    expect(await render('{% for i in range(9) %}{% if i == 3 %}{% break %}{% endif %}{{ i }}{% endfor %}')).toBe('012');
    const tree = [{ n: 'a', c: [{ n: 'b', c: [] }] }];
    expect(await render('{% for i in t recursive %}{{ i.n }}{{ loop.depth }}{% if i.c %}({{ loop(i.c) }}){% endif %}{% endfor %}', { t: tree })).toBe('a1(b2)');
  });

  it('follows Jinja2 scoping and namespace()', async () => {
    expect(await render('{% set x = 0 %}{% for i in [1,2] %}{% set x = i %}{% endfor %}{{ x }}')).toBe('0');
    expect(await render('{% set ns = namespace(n=0) %}{% for i in [1,2] %}{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }}')).toBe('3');
  });

  it('macros, call blocks, filter blocks, with', async () => {
    expect(await render('{% macro m(a, b=2) %}{{ a }}{{ b }}{{ varargs }}{% endmacro %}{{ m(1) }} {{ m(1, 3, 4) }}')).toBe('12() 13(4,)');
    expect(await render('{% macro w() %}<{{ caller(1) }}>{% endmacro %}{% call(x) w() %}x={{ x }}{% endcall %}')).toBe('<x=1>');
    expect(await render('{% filter upper %}a{{ 1 }}{% endfilter %}{% with y = 2 %}{{ y }}{% endwith %}')).toBe('A12');
  });

  it('applies whitespace control and options', async () => {
    expect(await render('a {%- if true %} b {% endif -%} c')).toBe('a b c');
    const trim = createEnvironment({ trimBlocks: true, lstripBlocks: true });
    expect(await trim.compile('<ul>\n  {% for i in [1] %}\n  <li>{{ i }}</li>\n  {% endfor %}\n</ul>\n').render()).toBe('<ul>\n  <li>1</li>\n</ul>');
    expect(await createEnvironment({ keepTrailingNewline: true }).compile('x\n').render()).toBe('x\n');
  });

  it('refuses include/import/extends when reached', async () => {
    expect((await failure("{% include 'x' %}")).kind).toBe('unavailable');
    expect(await render("{% if false %}{% include 'x' %}{% endif %}ok")).toBe('ok');
  });
});

describe('syntax errors', () => {
  it('carry line and column', () => {
    try {
      env.compile('ok\n{% for x in %}');
      throw new Error('no error');
    } catch (err) {
      expect(err).toBeInstanceOf(TemplateSyntaxError);
      expect((err as TemplateSyntaxError).lineno).toBe(2);
      expect((err as TemplateSyntaxError).column).toBeGreaterThan(0);
    }
    expect(() => env.compile('{% if x %}')).toThrow(/endif/);
    expect(() => env.compile('{{ x|nosuchfilter }}')).toThrow(TemplateSyntaxError);
  });
});

describe('sandbox', () => {
  it('hides JS internals and private names', async () => {
    expect(await render("{{ ''.constructor }}{{ x.__proto__ }}{{ x.constructor }}", { x: { a: 1 } })).toBe('');
    expect((await failure("{{ ''.constructor.constructor('return process')() }}")).kind).toBe('undefined');
    expect((await failure("{{ ''.__class__.__mro__ }}")).kind).toBe('security');
    expect((await failure('{{ f() }}', { f: () => 1 })).kind).toBe('security');
  });

  it('never reads a host object property by name', async () => {
    const obj = { [TEMPLATE_OBJECT]: true as const, secret: 's', getAttr: (n: string) => (n === 'name' ? 'visible' : UNDEFINED) };
    expect(await render('{{ o.name }}|{{ o.secret }}|{{ o.getAttr }}', { o: obj })).toBe('visible||');
  });

  it('keeps context data read-only', async () => {
    expect((await failure('{% set _ = l.append(1) %}', { l: [] })).kind).toBe('security');
    expect(await render('{% set l = [] %}{% set _ = l.append(1) %}{{ l }}')).toBe('[1]');
  });

  it('enforces limits', async () => {
    expect((await failure('{{ range(100001)|length }}')).kind).toBe('limit');
    const small = createEnvironment({ maxOutputBytes: 100 });
    expect((await failure('{% for i in range(1000) %}xxxx{% endfor %}', {}, small)).kind).toBe('limit');
    expect((await failure("{{ 'x' * 1000 }}", {}, small)).kind).toBe('limit');
    expect((await failure('{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}')).kind).toBe('limit');
    const quick = createEnvironment({ timeBudgetMs: 50 });
    expect((await failure('{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}', {}, quick)).kind).toBe('timeout');
  });

  it('stops on an AbortSignal', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(env.compile('x').render({}, { signal: ac.signal })).rejects.toMatchObject({ kind: 'cancelled' });
  });
});

describe('async data', () => {
  it('awaits host attributes only where they are Promises', async () => {
    const rows = [host({ name: 'a', n: 1 }), host({ name: 'b', n: 2 })];
    expect(await render('{% for r in rows %}{{ r.name|upper }}{{ r.n + 1 }}{{ r.missing }};{% endfor %}', { rows })).toBe('A2;B3;');
    expect(await render("{{ rows|map(attribute='name')|join(',') }} {{ rows|sort(attribute='n', reverse=true)|map(attribute='name')|first }}", { rows })).toBe('a,b b');
  });

  it('renders host data the same whether attributes are Promises or plain values', async () => {
    // Statements after the first async one take seqAsync's head/tail path: filters, escaping, if/else, nested
    // loops, break/continue and error lines must behave exactly as on the synchronous path.
    const make = (async: boolean): TemplateObject[] =>
      [0, 1, 2, 3].map((i) => host({ id: i, name: `<n${i}>`, tags: ['x', 'y'].slice(0, i % 3), on: i % 2 === 0 }, async));
    const src =
      '{% for r in rows %}{{ r.id }}:{{ r.name|upper|replace("N", "m") }}:{{ r.name|e }}{% if r.on %}+{% else %}-{% endif %}' +
      '{% for t in r.tags %}{{ t }}{% else %}none{% endfor %}{% if r.id == 2 %}{% continue %}{% endif %}{{ r.id * 2 }}' +
      '{% if r.id == 3 %}{% break %}{% endif %};{% endfor %}';
    expect(await render(src, { rows: make(true) })).toBe(await render(src, { rows: make(false) }));
    const auto = new Environment({});
    const escSrc = '{% autoescape true %}{% for r in rows %}{{ r.id }}{{ r.name }}{{ r.name|lower }}{% endfor %}{% endautoescape %}';
    expect(await auto.compile(escSrc).render({ rows: make(true) })).toBe(await auto.compile(escSrc).render({ rows: make(false) }));
    const err = await failure('{% for r in rows %}{{ r.id }}\n{{ r.name|int(1, 2, 3) }}{% endfor %}', { rows: make(true) });
    expect(err.lineno).toBe(2);
    const err2 = await failure('{% for r in rows %}{{ r.id }}\n\n{{ r.nope.deeper }}{% endfor %}', { rows: make(true) });
    expect(err2.lineno).toBe(3);
  });

  it('prefetches loop-variable attributes without changing what a template sees', async () => {
    const reads: string[] = [];
    const failing = (id: number, bad: string): TemplateObject => ({
      [TEMPLATE_OBJECT]: true,
      getAttr: (name) => {
        reads.push(`${id}.${name}`);
        if (name === bad) return Promise.reject(new Error(`no ${name} for ${id}`));
        return Promise.resolve(name === 'id' ? id : name === 'ok' ? id !== 2 : UNDEFINED);
      },
    });
    const rows = [failing(1, 'x'), failing(2, 'x'), failing(3, 'boom')];
    // A rejected fetch the body never reaches stays silent; one it reaches fails with its own line.
    expect(await render('{% for r in rows %}{{ r.id }}{% if r.ok %}+{% endif %}{% endfor %}', { rows: rows.slice(0, 2) })).toBe('1+2');
    const err = await failure('{% for r in rows %}{{ r.id }}\n{% if r.id == 3 %}{{ r.boom }}{% endif %}{% endfor %}', { rows });
    expect(err.message).toMatch(/no boom for 3/);
    expect(err.lineno).toBe(2);
    // break: output stops exactly where the synchronous render stops.
    expect(await render('{% for r in rows %}{{ r.id }}{% if r.id == 2 %}{% break %}{% endif %}{% endfor %}', { rows })).toBe('12');
    // Data changed between renders of one compiled template is seen, never a previous render's value.
    const data = { id: 1 };
    const obj: TemplateObject = { [TEMPLATE_OBJECT]: true, getAttr: (n) => Promise.resolve(n === 'id' ? data.id : UNDEFINED) };
    const t = env.compile('{% for r in rows %}{{ r.id }}{% endfor %}');
    expect(await t.render({ rows: [obj, obj] })).toBe('11');
    data.id = 7;
    expect(await t.render({ rows: [obj] })).toBe('7');
    // Concurrent renders of one compiled template keep their own chunks (more rows than one chunk).
    const many = (tag: string): TemplateObject[] =>
      Array.from({ length: 600 }, (_, i) => host({ v: `${tag}${i % 10}` }));
    const tc = env.compile('{% for r in rows %}{{ r.v }}{% endfor %}');
    const [a, b] = await Promise.all([tc.render({ rows: many('a') }), tc.render({ rows: many('b') })]);
    expect([a, b]).toEqual([await tc.render({ rows: many('a') }), await tc.render({ rows: many('b') })]);
    expect(a).toBe('a0a1a2a3a4a5a6a7a8a9'.repeat(60));
    // Rebinding the loop variable in the body turns prefetching off for that loop.
    expect(await render('{% for r in rows %}{{ r.id }}{% set r = {"id": "x"} %}{{ r.id }}{% endfor %}', { rows: [obj] })).toBe('7x');
  });

  it('streams a for loop over an async iterable', async () => {
    async function* gen(): AsyncGenerator<number> {
      for (let i = 0; i < 3; i++) yield i;
    }
    const src: TemplateObject = { [TEMPLATE_OBJECT]: true, getAttr: () => UNDEFINED, iterate: () => gen() };
    expect(await render('{% for i in s %}{{ i }}{% if not loop.last %},{% endif %}{% endfor %}', { s: src })).toBe('0,1,2');
    expect(await render('{% for i in s %}{{ loop.length }}{% endfor %}', { s: src })).toBe('333');
  });

  it('runs a host list that hands out batches batch by batch, with the same text as item by item', async () => {
    const rows = Array.from({ length: 23 }, (_, i) => host({ n: i, even: i % 2 === 0 }));
    let pulled = 0;
    let closed = 0;
    const batched = (): TemplateObject => ({
      [TEMPLATE_OBJECT]: true,
      getAttr: () => UNDEFINED,
      iterate: () => ({
        async *[Symbol.asyncIterator]() {
          yield* rows;
        },
      }),
      iterateBatches: () => {
        let at = 0;
        return {
          next: async () => {
            if (at >= rows.length) return { value: undefined, done: true };
            pulled++;
            const batch = rows.slice(at, at + 5);
            at += 5;
            return { value: batch, done: false };
          },
          return: async () => {
            closed++;
            return { value: undefined, done: true };
          },
        };
      },
    });
    const plain = { s: rows };
    const cases = [
      '{% for r in s %}{{ r.n }},{% endfor %}',
      '{% for r in s if r.even %}{{ r.n }},{% else %}none{% endfor %}',
      '{% for r in s if r.n > 100 %}{{ r.n }}{% else %}none{% endfor %}',
      '{% for r in s %}{{ r.n }}{% if not loop.last %},{% endif %}{% endfor %}',
      '{% for r in s %}{% if r.n == 7 %}{% break %}{% endif %}{{ r.n }},{% else %}no break{% endfor %}',
      '{% for r in s %}{% for q in s %}{% if q.n > 1 %}{% break %}{% endif %}{{ r.n }}.{{ q.n }} {% endfor %}{% endfor %}',
    ];
    for (const c of cases) expect(await render(c, { s: batched() }), c).toBe(await render(c, plain));
    // The break left after the second batch: no further batch was pulled, and the cursor was closed.
    pulled = 0;
    closed = 0;
    await render('{% for r in s %}{% if r.n == 7 %}{% break %}{% endif %}{% endfor %}', { s: batched() });
    expect([pulled, closed]).toEqual([2, 1]);
    // A loop that reads `loop` needs look-ahead across batches and walks the items instead.
    pulled = 0;
    await render('{% for r in s %}{{ loop.index }}{% endfor %}', { s: batched() });
    expect(pulled).toBe(0);
  });

  it('a batch that fails to load fails the render with a template error', async () => {
    const failing: TemplateObject = {
      [TEMPLATE_OBJECT]: true,
      getAttr: () => UNDEFINED,
      iterateBatches: () => ({ next: () => Promise.reject(new Error('connection lost')) }),
    };
    const err = await failure('{% for r in s %}{{ r }}{% endfor %}', { s: failing });
    expect([err.kind, err.message]).toEqual(['runtime', 'connection lost']);
  });

  it('renderStream yields the same text in chunks', async () => {
    const t = env.compile('{% for i in range(20000) %}row {{ i }}\n{% endfor %}');
    const chunks: string[] = [];
    for await (const c of t.renderStream()) chunks.push(c);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join('')).toBe(await t.render());
  });
});

describe('address filters and tests', () => {
  it('answers the worked example', async () => {
    expect(await render("{% set a = '10.0.0.5/24' %}{{ a|cidr }} {{ a|host }} {{ a|prefixlen }} {{ a|netmask }} {{ a|wildcard }} {{ a|network }}")).toBe(
      '10.0.0.5/24 10.0.0.5 24 255.255.255.0 0.0.0.255 10.0.0.0/24',
    );
    expect(await render("{{ '10.0.0.5'|cidr }} {{ '2001:db8::1/64'|network }} {{ '2001:db8::1' is ipv6 }} {{ 'x' is ipv4 }}")).toBe(
      '10.0.0.5/32 2001:db8::/64 True False',
    );
  });

  it('takes address objects with a prefix length', async () => {
    const ip = host({ address: '192.0.2.7', prefix_length: 26 });
    expect(await render('{{ ip|cidr }} {{ ip|network }} {{ ip is ipv4 }}', { ip })).toBe('192.0.2.7/26 192.0.2.0/26 True');
  });

  it('names the invalid value', async () => {
    const err = await failure("{{ 'nope'|host }}");
    expect(err.kind).toBe('type');
    expect(err.message).toContain("'nope'");
  });
});

describe('registration', () => {
  it('calls registered filters, tests and globals', async () => {
    const e = new Environment();
    e.addFilter('double', (v) => Number(v) * 2);
    e.addTest('big', (v) => Number(v) > 10);
    e.addGlobal('hello', (name: unknown) => `hi ${String(name)}`);
    expect(await e.compile('{{ 4|double }} {{ 20 is big }} {{ hello("x") }}').render()).toBe('8 True hi x');
    e.addFilter('boom', () => {
      throw new Error('bad');
    });
    await expect(e.compile('{{ 1|boom }}').render()).rejects.toMatchObject({ kind: 'runtime', lineno: 1 });
  });
});

describe('attribute reads of plain data', () => {
  // Each attribute name gets a reader of its own up to a cap, then a shared one: both must answer alike.
  it('reads own keys, and neither inherited methods nor dict methods, on either side of the reader cap', async () => {
    const inherited = (names: string[]): string => names.map((n) => `{{ p.${n} is defined }}`).join('|') + '|{{ p.a }}';
    const p = { a: 1 };
    expect(await render(inherited(['toString', 'valueOf', 'missing']), { p })).toBe('False|False|False|1');
    const names = Array.from({ length: 4200 }, (_v, i) => `cap${i}`);
    const o: Record<string, unknown> = Object.fromEntries(names.map((n, i) => [n, i]));
    o.items = 'a key named items';
    expect((await render(names.map((n) => `{{ o.${n} }}`).join(','), { o })).split(',').map(Number)).toEqual(names.map((_n, i) => i));
    // Names first read beyond the cap.
    expect(await render(inherited(['hasOwnProperty', 'isPrototypeOf', 'absent']), { p })).toBe('False|False|False|1');
    expect(await render('{{ o.items is callable }} {{ o["items"] }} {% for r in rows %}{{ r.cap7 }}{% endfor %}', { o, rows: [o, { cap7: 'x' }, host({ cap7: 'h' })] })).toBe(
      'True a key named items 7xh',
    );
  });
});
