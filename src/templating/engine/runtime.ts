// Runtime structures of a render: scopes (frames), the loop object, macros, namespace(), cycler(), joiner().
import { TemplateError, limitError, typeError } from './errors.ts';
import type { RenderState } from './state.ts';
import { Out } from './state.ts';
import { thenMaybe } from './ops.ts';
import { type Kwargs, PyObject, Undefined, newDict, pyEquals, repr, tuple, isDict, dictEntries, toStr } from './values.ts';

export const BREAK: unique symbol = Symbol('break');
export const CONTINUE: unique symbol = Symbol('continue');
/** What a statement returns: nothing, a loop control signal, or a Promise of either (async data only). */
export type Flow = undefined | typeof BREAK | typeof CONTINUE | Promise<Flow>;
export type Ev = (f: Frame) => unknown;
export type Ex = (f: Frame, out: Out) => Flow;

/**
 * A scope. Lookups walk the parent chain up to the context and the environment's globals. The first name bound
 * lives in a slot and a Map is only made for a second one: most loop scopes hold just the loop variable, and a
 * nested loop runs once per outer row.
 */
export class Frame {
  private k: string | null = null;
  private v: unknown = undefined;
  private m: Map<string, unknown> | null = null;
  constructor(
    readonly parent: Frame | null,
    readonly state: RenderState,
  ) {}
  child(): Frame {
    return new Frame(this, this.state);
  }
  /** JS undefined when not bound here. */
  get(name: string): unknown {
    if (name === this.k) return this.v;
    return this.m === null ? undefined : this.m.get(name);
  }
  set(name: string, value: unknown): void {
    if (this.k === null || this.k === name) {
      this.k = name;
      this.v = value;
      return;
    }
    (this.m ??= new Map()).set(name, value);
  }
  has(name: string): boolean {
    return name === this.k || (this.m !== null && this.m.has(name));
  }
  delete(name: string): void {
    if (name === this.k) {
      this.k = null;
      this.v = undefined;
    } else this.m?.delete(name);
  }
}

export function lookup(f: Frame, name: string): unknown {
  let fr: Frame | null = f;
  do {
    const v = fr.get(name);
    if (v !== undefined) return v;
    fr = fr.parent;
  } while (fr !== null);
  return new Undefined(`'${name}' is undefined`);
}

export class Namespace extends PyObject {
  readonly typeName = 'Namespace';
  readonly vars = new Map<string, unknown>();
  override repr(): string {
    const parts: string[] = [];
    for (const [k, v] of this.vars) parts.push(`${repr(k)}: ${repr(v)}`);
    return `<Namespace {${parts.join(', ')}}>`;
  }
  override getAttr(name: string): unknown {
    return this.vars.get(name);
  }
}

export function makeNamespace(args: unknown[], kwargs: Kwargs): Namespace {
  const ns = new Namespace();
  for (const a of args) {
    if (isDict(a)) for (const [k, v] of dictEntries(a)) ns.vars.set(toStr(k), v);
    else if (Array.isArray(a))
      for (const pair of a) {
        if (Array.isArray(pair) && pair.length === 2) ns.vars.set(toStr(pair[0]), pair[1]);
        else throw typeError('dictionary update sequence element has wrong length');
      }
    else throw typeError(`'${repr(a)}' object is not iterable`);
  }
  for (const k of Object.keys(kwargs)) ns.vars.set(k, kwargs[k]);
  return ns;
}

export const NO_ITEM: unique symbol = Symbol('no-item');

/**
 * Jinja2's LoopContext. One instance per loop run, mutated per iteration (templates that keep `loop` in a variable
 * see it move on, as in Jinja2). In array mode everything is known; in stream mode (async host iterables) the
 * next item is looked ahead and `length` materializes the rest on demand (a Promise).
 */
export class LoopContext extends PyObject {
  readonly typeName = 'LoopContext';
  index0 = -1;
  arr: unknown[] | null = null;
  prev: unknown = NO_ITEM;
  next: unknown = NO_ITEM;
  streamLength: (() => Promise<number>) | null = null;
  private lastChanged: unknown[] | typeof NO_ITEM = NO_ITEM;

  constructor(
    readonly depth0: number,
    readonly recurse: { call(v: unknown): unknown } | null,
  ) {
    super();
  }

  private length(): number | Promise<number> {
    if (this.arr) return this.arr.length;
    if (this.streamLength) return this.streamLength();
    return this.index0 + 1 + (this.next === NO_ITEM ? 0 : 1);
  }

  override repr(): string {
    const len = this.length();
    return `<LoopContext ${this.index0 + 1}/${typeof len === 'number' ? len : '?'}>`;
  }

  override getAttr(name: string): unknown {
    switch (name) {
      case 'index':
        return this.index0 + 1;
      case 'index0':
        return this.index0;
      case 'first':
        return this.index0 === 0;
      case 'last':
        if (this.arr) return this.index0 === this.arr.length - 1;
        return this.next === NO_ITEM;
      case 'length':
        return this.length();
      case 'revindex':
        return thenMaybe(this.length(), (n) => (n as number) - this.index0);
      case 'revindex0':
        return thenMaybe(this.length(), (n) => (n as number) - this.index0 - 1);
      case 'depth':
        return this.depth0 + 1;
      case 'depth0':
        return this.depth0;
      case 'previtem': {
        const p = this.arr ? (this.index0 > 0 ? this.arr[this.index0 - 1] : NO_ITEM) : this.prev;
        return p === NO_ITEM ? new Undefined('there is no previous item') : p;
      }
      case 'nextitem': {
        const n = this.arr ? (this.index0 < this.arr.length - 1 ? this.arr[this.index0 + 1] : NO_ITEM) : this.next;
        return n === NO_ITEM ? new Undefined('there is no next item') : n;
      }
      case 'cycle':
      case 'changed':
        return new LoopMethod(this, name);
    }
    return undefined;
  }

  cycle(args: unknown[]): unknown {
    if (!args.length) throw typeError('no items for cycling given');
    return args[this.index0 % args.length];
  }

  changed(args: unknown[]): boolean {
    if (this.lastChanged !== NO_ITEM && pyEquals(tuple(this.lastChanged), tuple(args))) return false;
    this.lastChanged = args;
    return true;
  }

  override isCallable(): boolean {
    return this.recurse !== null;
  }

  override call(args: unknown[]): unknown {
    if (!this.recurse) throw typeError("Tried to call non recursive loop. Maybe you forgot the 'recursive' modifier.");
    if (args.length !== 1) throw typeError(`loop() takes exactly one argument (${args.length} given)`);
    return this.recurse.call(args[0]);
  }
}

class LoopMethod extends PyObject {
  readonly typeName = 'method';
  constructor(
    private readonly loop: LoopContext,
    private readonly name: 'cycle' | 'changed',
  ) {
    super();
  }
  override isCallable(): boolean {
    return true;
  }
  override call(args: unknown[]): unknown {
    return this.name === 'cycle' ? this.loop.cycle(args) : this.loop.changed(args);
  }
}

/** A macro (also the `caller` of a call block). Calling renders its body into a fresh buffer and returns the text. */
export class Macro extends PyObject {
  readonly typeName = 'Macro';
  constructor(
    readonly name: string,
    readonly args: string[],
    readonly defaults: ((f: Frame) => unknown)[],
    readonly body: Ex,
    readonly defFrame: Frame,
    readonly catchVarargs: boolean,
    readonly catchKwargs: boolean,
    readonly usesCaller: boolean,
  ) {
    super();
  }

  override repr(): string {
    return `<Macro '${this.name}'>`;
  }

  override getAttr(name: string): unknown {
    switch (name) {
      case 'name':
        return this.name;
      case 'arguments':
        return tuple(this.args.slice());
      case 'catch_kwargs':
        return this.catchKwargs;
      case 'catch_varargs':
        return this.catchVarargs;
      case 'caller':
        return this.usesCaller;
    }
    return undefined;
  }

  override isCallable(): boolean {
    return true;
  }

  override call(args: unknown[], kwargs: Kwargs, stateArg: unknown): unknown {
    const state = stateArg as RenderState;
    if (state.depth >= state.limits.maxRecursionDepth)
      throw limitError(`maximum recursion depth of ${state.limits.maxRecursionDepth} exceeded in macro '${this.name}'`);
    const f = new Frame(this.defFrame, state);
    const nargs = this.args.length;
    if (args.length > nargs && !this.catchVarargs)
      throw typeError(`macro '${this.name}' takes not more than ${nargs} argument(s)`);
    const extra = newDict();
    for (const k of Object.keys(kwargs)) {
      if (k === 'caller' && this.usesCaller && !this.args.includes('caller')) {
        f.set('caller', kwargs[k]);
        continue;
      }
      const i = this.args.indexOf(k);
      if (i === -1) {
        if (!this.catchKwargs) throw typeError(`macro '${this.name}' takes no keyword argument '${k}'`);
        extra.set(k, kwargs[k]);
      } else if (i < args.length) throw typeError(`macro '${this.name}' got multiple values for argument '${k}'`);
    }
    if (this.usesCaller && !f.has('caller')) f.set('caller', new Undefined('No caller defined'));
    if (this.catchVarargs) f.set('varargs', tuple(args.slice(nargs)));
    if (this.catchKwargs) f.set('kwargs', extra);
    const firstDefault = nargs - this.defaults.length;
    let pending: Promise<unknown> | null = null;
    for (let i = 0; i < nargs; i++) {
      const name = this.args[i];
      if (i < args.length) f.set(name, args[i]);
      else if (Object.prototype.hasOwnProperty.call(kwargs, name)) f.set(name, kwargs[name]);
      else if (i >= firstDefault) {
        const d = this.defaults[i - firstDefault];
        if (pending) pending = pending.then(async () => f.set(name, await d(f)));
        else {
          const v = d(f);
          if (v instanceof Promise) pending = v.then((x) => f.set(name, x));
          else f.set(name, v);
        }
      } else f.set(name, new Undefined(`parameter '${name}' was not provided`));
    }
    const t = state.tick();
    if (pending || t) return Promise.all([pending, t]).then(() => this.runBody(f, state));
    return this.runBody(f, state);
  }

  private runBody(f: Frame, state: RenderState): unknown {
    const out = new Out(state.limits.maxOutputBytes);
    state.depth++;
    let r: Flow;
    try {
      r = this.body(f, out);
    } catch (err) {
      state.depth--;
      throw err;
    }
    if (r instanceof Promise)
      return r.then(
        () => {
          state.depth--;
          return out.take();
        },
        (err: unknown) => {
          state.depth--;
          throw err;
        },
      );
    state.depth--;
    return out.take();
  }
}

export class Cycler extends PyObject {
  readonly typeName = 'Cycler';
  pos = 0;
  constructor(readonly items: unknown[]) {
    super();
  }
  override getAttr(name: string): unknown {
    switch (name) {
      case 'current':
        return this.items[this.pos];
      case 'next':
        return new CyclerMethod(this, 'next');
      case 'reset':
        return new CyclerMethod(this, 'reset');
      case 'items':
        return this.items;
    }
    return undefined;
  }
}
class CyclerMethod extends PyObject {
  readonly typeName = 'method';
  constructor(
    private readonly c: Cycler,
    private readonly which: 'next' | 'reset',
  ) {
    super();
  }
  override isCallable(): boolean {
    return true;
  }
  override call(): unknown {
    if (this.which === 'reset') {
      this.c.pos = 0;
      return null;
    }
    const v = this.c.items[this.c.pos];
    this.c.pos = (this.c.pos + 1) % this.c.items.length;
    return v;
  }
}

export class Joiner extends PyObject {
  readonly typeName = 'Joiner';
  private used = false;
  constructor(readonly sep: string) {
    super();
  }
  override isCallable(): boolean {
    return true;
  }
  override call(): unknown {
    if (!this.used) {
      this.used = true;
      return '';
    }
    return this.sep;
  }
}

export function isTemplateError(e: unknown): e is TemplateError {
  return e instanceof TemplateError;
}
