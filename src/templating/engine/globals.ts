// Jinja2's default globals: range (sandboxed: at most maxRangeItems items), dict, lipsum, cycler, joiner, namespace.
import { bindArgs } from './bind.ts';
import { limitError, typeError } from './errors.ts';
import { NativeFunction } from './ops.ts';
import { Cycler, Joiner, makeNamespace } from './runtime.ts';
import type { RenderState } from './state.ts';
import { EMPTY_KWARGS, Markup, OWNED, VIEWS, dictEntries, dictSet, isDict, newDict, toNumber, toStr, truthy, typeName, type Kwargs } from './values.ts';

function intArg(v: unknown): number {
  if ((typeof v === 'number' && Number.isInteger(v)) || typeof v === 'boolean') return toNumber(v);
  // A big int is an int: as a (rounded) number it fails the range limits with their own clear errors.
  if (typeof v === 'bigint') return Number(v);
  throw typeError(`'${typeName(v)}' object cannot be interpreted as an integer`);
}

function range(args: unknown[], kwargs: Kwargs, state: RenderState): unknown {
  if (Object.keys(kwargs).length) throw typeError('range() takes no keyword arguments');
  if (args.length < 1 || args.length > 3) throw typeError(`range expected at most 3 arguments, got ${args.length}`);
  let start = 0;
  let stop: number;
  let step = 1;
  if (args.length === 1) stop = intArg(args[0]);
  else {
    start = intArg(args[0]);
    stop = intArg(args[1]);
    if (args.length === 3) step = intArg(args[2]);
  }
  if (step === 0) throw typeError('range() arg 3 must not be zero');
  const n = Math.max(0, Math.ceil((stop - start) / step));
  if (n > state.limits.maxRangeItems)
    throw limitError(`Range too big. The sandbox blocks ranges larger than MAX_RANGE (${state.limits.maxRangeItems}).`);
  const out: number[] = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = start + i * step;
  VIEWS.set(out, step === 1 ? `range(${start}, ${stop})` : `range(${start}, ${stop}, ${step})`);
  return out;
}

const LIPSUM_WORDS =
  'a ac accumsan ad adipiscing aenean aliquam aliquet amet ante aptent arcu at auctor augue bibendum blandit class commodo condimentum congue consectetuer consequat conubia convallis cras cubilia cum curabitur curae cursus dapibus diam dictum dictumst dignissim dis dolor donec dui duis egestas eget eleifend elementum elit enim erat eros est et etiam eu euismod facilisi facilisis fames faucibus felis fermentum feugiat fringilla fusce gravida habitant habitasse hac hendrerit hymenaeos iaculis id imperdiet in inceptos integer interdum ipsum justo lacinia lacus laoreet lectus leo libero ligula litora lobortis lorem luctus maecenas magna magnis malesuada massa mattis mauris metus mi molestie mollis montes morbi mus nam nascetur natoque nec neque netus nibh nisi nisl non nonummy nostra nulla nullam nunc odio orci ornare parturient pede pellentesque penatibus per pharetra phasellus placerat platea porta porttitor posuere potenti praesent pretium primis proin pulvinar purus quam quis quisque rhoncus ridiculus risus rutrum sagittis sapien scelerisque sed sem semper senectus sit sociis sociosqu sodales sollicitudin suscipit suspendisse taciti tellus tempor tempus tincidunt torquent tortor tristique turpis ullamcorper ultrices ultricies urna ut varius vehicula vel velit venenatis vestibulum vitae vivamus viverra volutpat vulputate'.split(
    ' ',
  );

function randrange(lo: number, hi: number): number {
  // Python's randrange: hi is exclusive, an empty range is an error (not a silent fallback).
  if (hi <= lo) throw typeError(`empty range in randrange(${lo}, ${hi})`);
  return lo + Math.floor(Math.random() * (hi - lo));
}

/** Jinja2's generate_lorem_ipsum, step for step, so word counts and punctuation follow the same ranges. */
function lipsum(args: unknown[], kwargs: Kwargs, state: RenderState): unknown {
  const [n, html, min, max] = bindArgs('lipsum', [['n', 5], ['html', true], ['min', 20], ['max', 100]], args, kwargs);
  const count = intArg(n);
  const lo = intArg(min);
  const hi = intArg(max);
  if (count * hi > state.limits.maxOutputBytes) throw limitError('lipsum output exceeds the output limit');
  const paras: string[] = [];
  for (let p = 0; p < count; p++) {
    let nextCapitalized = true;
    let lastComma = 0;
    let lastFullstop = 0;
    let last: string | null = null;
    const words: string[] = [];
    const len = randrange(lo, hi);
    for (let idx = 0; idx < len; idx++) {
      let word: string;
      do word = LIPSUM_WORDS[Math.floor(Math.random() * LIPSUM_WORDS.length)];
      while (word === last);
      last = word;
      if (nextCapitalized) {
        word = word[0].toUpperCase() + word.slice(1);
        nextCapitalized = false;
      }
      if (idx - randrange(3, 8) > lastComma) {
        lastComma = idx;
        lastFullstop += 2;
        word += ',';
      }
      if (idx - randrange(10, 20) > lastFullstop) {
        lastComma = lastFullstop = idx;
        word += '.';
        nextCapitalized = true;
      }
      words.push(word);
    }
    let text = words.join(' ');
    if (text.endsWith(',')) text = text.slice(0, -1) + '.';
    else if (!text.endsWith('.')) text += '.';
    paras.push(text);
  }
  if (truthy(html)) return new Markup(paras.map((p) => `<p>${p}</p>`).join('\n'));
  return paras.join('\n\n');
}

export function builtinGlobals(): Map<string, unknown> {
  const g = new Map<string, unknown>();
  g.set('range', new NativeFunction('range', range));
  g.set(
    'dict',
    new NativeFunction('dict', (args, kwargs) => {
      if (args.length > 1) throw typeError(`dict expected at most 1 argument, got ${args.length}`);
      const m = args.length ? makeNamespace(args, EMPTY_KWARGS).vars : new Map<string, unknown>();
      const out = newDict(args.length && isDict(args[0]) ? dictEntries(args[0]) : m.entries());
      for (const k of Object.keys(kwargs)) dictSet(out, k, kwargs[k]);
      return out;
    }),
  );
  g.set('lipsum', new NativeFunction('lipsum', lipsum));
  g.set('cycler', new NativeFunction('cycler', (args) => {
    if (!args.length) throw typeError('at least one item has to be provided');
    return new Cycler(args.slice());
  }));
  g.set(
    'joiner',
    new NativeFunction('joiner', (args, kwargs) => {
      const [sep] = bindArgs('joiner', [['sep', ', ']], args, kwargs);
      return new Joiner(toStr(sep));
    }),
  );
  g.set('namespace', new NativeFunction('namespace', (args, kwargs) => makeNamespace(args, kwargs)));
  return g;
}

export { OWNED };
