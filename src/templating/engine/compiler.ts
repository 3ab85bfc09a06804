// Compiles the AST into closures. Each expression becomes `(frame) => value | Promise<value>` and each statement
// `(frame, out) => Flow`; nothing is awaited unless a Promise actually appears, so plain data renders synchronously.
import type { CallArgs, Expr, Stmt, Target } from './ast.ts';
import { TemplateError, TemplateSyntaxError, toTemplateError, typeError } from './errors.ts';
import {
  add,
  callMethod,
  callValue,
  contains,
  div,
  escape,
  floordiv,
  getAttr,
  hostAttr,
  getItem,
  hostError,
  isUnsafeName,
  iterable,
  mod,
  mul,
  neg,
  pos,
  pow,
  sliceValue,
  sub,
  toList,
} from './ops.ts';
import {
  BREAK,
  CONTINUE,
  type Ev,
  type Ex,
  type Flow,
  Frame,
  LoopContext,
  Macro,
  NO_ITEM,
  Namespace,
  lookup,
} from './runtime.ts';
import { loopItemReads } from './reads.ts';
import { Out, type FilterImpl, type Registry, type RenderState } from './state.ts';
import {
  EMPTY_KWARGS,
  type ItemReads,
  type Kwargs,
  Markup,
  OWNED,
  TEMPLATE_OBJECT,
  Undefined,
  dictEntries,
  isDict,
  isTemplateObject,
  isUndefined,
  newDict,
  dictSet,
  pyCompare,
  pyEquals,
  toStr,
  truthy,
  tuple,
  undefinedFail,
} from './values.ts';

const EMPTY_ARGS: unknown[] = [];
const hasOwn = Object.prototype.hasOwnProperty;

/** What an own-data reader answers when its value is not an own data key of a plain object. */
const NOT_PLAIN: unique symbol = Symbol('not plain');
type OwnDataReader = (o: unknown) => unknown;
const OWN_READERS = new Map<string, OwnDataReader>();
/** Names beyond this share one generic reader: attribute names come from templates, and each reader is code. */
const MAX_OWN_READERS = 4096;

/**
 * The fast path of `x.attr` for one attribute name: the value of an own data key of a plain JSON-like object
 * (never a host object), else NOT_PLAIN. Each name gets code of its own, built once per process: one shared
 * function read every attribute of every template through a keyed lookup that V8 could only make megamorphic
 * (400,000 reads of 8 names: 8.3 ms shared, 2.6 ms a function per name). The name goes into the code as a string
 * literal (JSON.stringify).
 * Only names isUnsafeName lets through come here, so a key found on the prototype (Object.prototype, checked)
 * can only be one of its methods, which the typeof test turns away: no own-property test is needed.
 */
function ownDataReader(attr: string): OwnDataReader {
  let read = OWN_READERS.get(attr);
  if (read !== undefined) return read;
  if (OWN_READERS.size >= MAX_OWN_READERS) return (o) => readOwnData(o, attr);
  const key = JSON.stringify(attr);
  read = new Function(
    'proto',
    'marker',
    'miss',
    `return function (o) {
      if (typeof o !== 'object' || o === null || Object.getPrototypeOf(o) !== proto || o[marker] === true) return miss;
      const v = o[${key}];
      return v === undefined || typeof v === 'function' ? miss : v;
    };`,
  )(Object.prototype, TEMPLATE_OBJECT, NOT_PLAIN) as OwnDataReader;
  OWN_READERS.set(attr, read);
  return read;
}

function readOwnData(o: unknown, attr: string): unknown {
  if (
    typeof o !== 'object' ||
    o === null ||
    Object.getPrototypeOf(o) !== Object.prototype ||
    (o as { [TEMPLATE_OBJECT]?: unknown })[TEMPLATE_OBJECT] === true ||
    !hasOwn.call(o, attr)
  )
    return NOT_PLAIN;
  const v = (o as Record<string, unknown>)[attr];
  return v === undefined || typeof v === 'function' ? NOT_PLAIN : v;
}

// ------------------------------------------------------------------------------------ AST analysis

type AnyNode = { type: string } & Record<string, unknown>;

// Nested loops and macros each ask about their whole subtree: answers are memoized per node and name, so a
// template nested n deep costs O(n) here rather than O(n^2) (a fuzz case nests a thousand for loops).
const NAME_USE = new Map<string, WeakMap<object, boolean>>();
function usesName(node: unknown, name: string): boolean {
  let memo = NAME_USE.get(name);
  if (memo === undefined) NAME_USE.set(name, (memo = new WeakMap()));
  return mentions(node, name, memo);
}
function mentions(node: unknown, name: string, memo: WeakMap<object, boolean>): boolean {
  if (typeof node !== 'object' || node === null) return false;
  const known = memo.get(node);
  if (known !== undefined) return known;
  let found = false;
  if (Array.isArray(node)) {
    for (const x of node) if (mentions(x, name, memo)) found = true;
  } else if ('type' in node) {
    const n = node as AnyNode;
    if (n.type === 'Name' && n.name === name) found = true;
    for (const k of Object.keys(n)) if (mentions(n[k], name, memo)) found = true;
  }
  memo.set(node, found);
  return found;
}

function targetNames(t: Target, out: string[]): void {
  if (t.type === 'Name') out.push(t.name);
  else if (t.type === 'Tuple') for (const x of t.items) targetNames(x, out);
}

/** Names a body binds in its own scope (Jinja2 resets them every loop iteration). */
function assignedNames(body: Stmt[], out: string[] = []): string[] {
  for (const s of body) {
    if (s.type === 'Set' || s.type === 'SetBlock') targetNames(s.target, out);
    else if (s.type === 'Macro') out.push(s.name);
    else if (s.type === 'If') {
      assignedNames(s.body, out);
      assignedNames(s.orelse, out);
    } else if (s.type === 'Autoescape') assignedNames(s.body, out);
  }
  return out;
}

// ------------------------------------------------------------------------------------ helpers

function annotate(err: unknown, line: number, name: string | undefined): TemplateError {
  return toTemplateError(err, line, name);
}

/** Wraps an evaluator so any error it raises carries this line. */
function lined(ev: Ev, line: number, name: string | undefined): Ev {
  const onReject = (e: unknown): never => {
    throw annotate(e, line, name);
  };
  return (f) => {
    try {
      const v = ev(f);
      // Annotating a rejection costs one more Promise: only done for expressions that really went async.
      if (v instanceof Promise) return v.then(undefined, onReject);
      return v;
    } catch (e) {
      throw annotate(e, line, name);
    }
  };
}

/** Applies fn to a and b, awaiting only those that are Promises (Promise.all only when both are). */
function then2<R>(a: unknown, b: unknown, fn: (x: unknown, y: unknown) => R): R | Promise<R> {
  if (a instanceof Promise) {
    if (b instanceof Promise) return Promise.all([a, b]).then(([x, y]) => fn(x, y));
    return a.then((x) => fn(x, b));
  }
  if (b instanceof Promise) return b.then((y) => fn(a, y));
  return fn(a, b);
}

function allMaybe(vals: unknown[]): unknown[] | Promise<unknown[]> {
  for (const v of vals) if (v instanceof Promise) return Promise.all(vals);
  return vals;
}

// Applies `then` only when needed, keeping the synchronous path allocation-free.
function then1(v: unknown, f: (x: unknown) => unknown): unknown {
  return v instanceof Promise ? v.then(f) : f(v);
}

// The continuations of values that turned out to be Promises are made by the functions below, not written inline in
// an evaluator: an arrow inside an evaluator that closes over its frame or output makes V8 allocate a context on
// every call, Promise or not, and those contexts were a measured share of a 50,000-row render's garbage.

function writeLater(p: Promise<unknown>, out: Out, write: (out: Out, x: unknown) => undefined, onReject: (e: unknown) => never): Promise<undefined> {
  return p.then((x) => write(out, x), onReject);
}

function ifLater(t: Promise<unknown>, f: Frame, out: Out, body: Ex, orelse: Ex | null, onReject: (e: unknown) => never): Promise<Flow> {
  return t.then((x) => (truthy(x) ? body(f, out) : orelse ? orelse(f, out) : undefined), onReject);
}

function assignLater(v: Promise<unknown>, f: Frame, assign: (f: Frame, v: unknown) => void): Promise<undefined> {
  return v.then((x) => {
    assign(f, x);
    return undefined;
  });
}

function pickLater(t: Promise<unknown>, f: Frame, yes: Ev, no: Ev): Promise<unknown> {
  return t.then((x) => (truthy(x) ? yes(f) : no(f)));
}

function andLater(a: Promise<unknown>, f: Frame, r: Ev): Promise<unknown> {
  return a.then((x) => (truthy(x) ? r(f) : x));
}

function orLater(a: Promise<unknown>, f: Frame, r: Ev): Promise<unknown> {
  return a.then((x) => (truthy(x) ? x : r(f)));
}

function binaryLater(a: unknown, b: unknown, fn: (a: unknown, b: unknown, f: Frame) => unknown, f: Frame): unknown {
  return then2(a, b, (x, y) => fn(x, y, f));
}

function applyLater(v: unknown, a: unknown, impl: FilterImpl, state: RenderState): unknown {
  return then2(v, a, (x, y) => impl(state, x, (y as [unknown[], Kwargs])[0], (y as [unknown[], Kwargs])[1]));
}

export class Compiler {
  private autoescape = false;
  /** The head/tail view of the statement being compiled, when it has one (see Split). */
  private stmtSplit: Split | null = null;
  /** Text that follows the print being compiled (see compileBody). */
  private printSuffix = '';
  /** The text before a print, written by the print itself with its value and suffix (one write for the three). */
  private printPrefix = '';
  // Jinja2 reports an unknown filter or test inside an `if` only when that code runs (the if may be guarding it).
  private ifDepth = 0;

  constructor(
    private readonly registry: Registry,
    private readonly templateName: string | undefined,
  ) {}

  /** An unknown filter/test: a syntax error, or (inside an if) a runtime error raised only if reached. */
  private missing(what: 'filter' | 'test', name: string, line: number): (...a: unknown[]) => never {
    if (this.ifDepth === 0) return this.fail(`No ${what} named '${name}'.`, line);
    const tname = this.templateName;
    return () => {
      throw new TemplateError('type', `No ${what} named '${name}' found.`, { lineno: line, templateName: tname });
    };
  }

  private fail(msg: string, line: number): never {
    throw new TemplateSyntaxError(msg, line, 1, this.templateName);
  }

  // ---------------------------------------------------------------- statements

  compileBody(body: Stmt[]): Ex {
    const parts: Ex[] = [];
    let text = '';
    for (let i = 0; i < body.length; i++) {
      const s = body[i]!;
      if (s.type === 'Data') {
        text += s.text;
        continue;
      }
      // The text around a print is written by the print itself, with its value: one step of the statement list
      // and one write less per print. (An expression never writes to the output, so the text before it may wait
      // for its value.)
      this.printPrefix = '';
      if (text) {
        if (s.type === 'Print') this.printPrefix = text;
        else {
          const t = text;
          parts.push((_f, out) => {
            out.write(t);
            return undefined;
          });
        }
        text = '';
      }
      this.stmtSplit = null;
      this.printSuffix = '';
      if (s.type === 'Print') while (body[i + 1]?.type === 'Data') this.printSuffix += (body[++i] as { text: string }).text;
      const ex = this.stmt(s);
      this.printSuffix = '';
      this.printPrefix = '';
      // Only these three set their own split, after compiling their bodies; any other statement (macro, with,
      // call block...) may have left a nested statement's split behind, which is not its own.
      if (this.stmtSplit !== null && (s.type === 'Print' || s.type === 'If' || s.type === 'For')) SPLITS.set(ex, this.stmtSplit);
      parts.push(ex);
    }
    if (text) {
      const t = text;
      parts.push((_f, out) => {
        out.write(t);
        return undefined;
      });
    }
    const compiled = seq(parts);
    BODY_SPLITS.set(compiled, parts.map((p) => SPLITS.get(p) ?? null));
    return compiled;
  }

  private stmt(s: Stmt): Ex {
    const name = this.templateName;
    switch (s.type) {
      case 'Data': {
        const t = s.text;
        return (_f, out) => {
          out.write(t);
          return undefined;
        };
      }
      case 'Print': {
        const suffix = this.printSuffix;
        const prefix = this.printPrefix;
        const raw = this.expr(s.expr);
        const line = s.line;
        const onReject = (e: unknown): never => {
          throw annotate(e, line, name);
        };
        const ev: Ev = (f) => {
          try {
            return raw(f);
          } catch (e) {
            throw annotate(e, line, name);
          }
        };
        const esc = this.autoescape;
        const write = (out: Out, x: unknown): undefined => {
          out.write3(prefix, esc ? escape(x).s : typeof x === 'string' ? x : toStr(x), suffix);
          return undefined;
        };
        // Once a statement list is running asynchronously (host data), seqAsync evaluates the innermost
        // non-filter expression (`row.name` of `row.name|upper`) and awaits *that* Promise itself, then applies
        // the filters and writes synchronously: one await per printed host attribute instead of a `.then` for each
        // filter, one for the print and one for the statement.
        {
          let inner: Expr = s.expr;
          while (inner.type === 'Filter' && inner.node) inner = inner.node;
          const chain = inner === s.expr ? null : this.filterChain(s.expr);
          this.stmtSplit = {
            head: inner === s.expr ? raw : this.expr(inner),
            expr: inner,
            tail: chain === null ? (esc ? (_f, out, v) => write(out, v) : (_f, out, v) => {
              // The commonest print, written out here: no call to write V8 cannot inline.
              out.write3(prefix, typeof v === 'string' ? v : toStr(v), suffix);
              return undefined;
            }) : (f, out, v) => {
              let r: unknown;
              try {
                r = chain(f, v);
              } catch (e) {
                throw annotate(e, line, name);
              }
              if (r instanceof Promise) return writeLater(r, out, write, onReject);
              return write(out, r);
            },
            line,
            name,
          };
        }
        return (f, out) => {
          const v = ev(f);
          if (v instanceof Promise) return writeLater(v, out, write, onReject);
          return write(out, v);
        };
      }
      case 'If': {
        this.ifDepth++;
        const rawTest = this.expr(s.test);
        const line = s.line;
        const test: Ev = (f) => {
          try {
            return rawTest(f);
          } catch (e) {
            throw annotate(e, line, name);
          }
        };
        const onReject = (e: unknown): never => {
          throw annotate(e, line, name);
        };
        const body = this.compileBody(s.body);
        const orelse = s.orelse.length ? this.compileBody(s.orelse) : null;
        this.ifDepth--;
        this.stmtSplit = {
          head: rawTest,
          expr: s.test,
          tail: (f, out, x) => (truthy(x) ? body(f, out) : orelse ? orelse(f, out) : undefined),
          line,
          name,
        };
        return (f, out) => {
          const t = test(f);
          if (t instanceof Promise) return ifLater(t, f, out, body, orelse, onReject);
          return truthy(t) ? body(f, out) : orelse ? orelse(f, out) : undefined;
        };
      }
      case 'For':
        return this.forLoop(s);
      case 'Set': {
        const ev = lined(this.expr(s.expr), s.line, name);
        const assign = this.assigner(s.target);
        return (f) => {
          const v = ev(f);
          if (v instanceof Promise) return assignLater(v, f, assign);
          assign(f, v);
          return undefined;
        };
      }
      case 'SetBlock': {
        const body = this.compileBody(s.body);
        const filter = s.filter ? this.filterChain(s.filter) : null;
        const assign = this.assigner(s.target);
        const autoescape = this.autoescape;
        return this.capture(body, (f, text) => {
          const v: unknown = autoescape ? new Markup(text) : text;
          return then1(filter ? filter(f, v) : v, (x) => {
            assign(f, x);
            return undefined;
          });
        }, s.line);
      }
      case 'Macro': {
        const macro = this.macroFactory(s.name, s.args, s.defaults, s.body);
        return (f) => {
          f.set(s.name, macro(f));
          return undefined;
        };
      }
      case 'CallBlock': {
        const callerFactory = this.macroFactory('caller', s.args, s.defaults, s.body);
        const call = s.call;
        if (call.type !== 'Call') return this.fail('expected call', s.line);
        const callEv = lined(this.callExpr(call, callerFactory), s.line, name);
        return (f, out) => {
          const v = callEv(f);
          if (v instanceof Promise)
            return v.then((x) => {
              out.write(toStr(x));
              return undefined;
            });
          out.write(toStr(v));
          return undefined;
        };
      }
      case 'FilterBlock': {
        const body = this.compileBody(s.body);
        const filter = this.filterChain(s.filter);
        return this.capture(body, (f, text, out) =>
          then1(filter(f, text), (x) => {
            out.write(toStr(x));
            return undefined;
          }),
        s.line);
      }
      case 'With': {
        const values = s.values.map((v) => lined(this.expr(v), s.line, name));
        const assigns = s.targets.map((t) => this.assigner(t));
        const body = this.compileBody(s.body);
        return (f, out) => {
          const inner = f.child();
          const vals = allMaybe(values.map((v) => v(f)));
          const go = (xs: unknown[]): Flow => {
            xs.forEach((x, i) => assigns[i](inner, x));
            return body(inner, out);
          };
          return vals instanceof Promise ? vals.then(go) : go(vals);
        };
      }
      case 'Block': {
        const body = this.compileBody(s.body);
        return (f, out) => body(f.child(), out);
      }
      case 'Autoescape': {
        const saved = this.autoescape;
        if (s.value.type === 'Const') this.autoescape = truthy(s.value.value);
        const body = this.compileBody(s.body);
        this.autoescape = saved;
        return body;
      }
      case 'Break':
        return () => BREAK;
      case 'Continue':
        return () => CONTINUE;
      case 'Do': {
        const ev = lined(this.expr(s.expr), s.line, name);
        return (f) => {
          const v = ev(f);
          return v instanceof Promise ? v.then(() => undefined) : undefined;
        };
      }
      case 'Unavailable': {
        const line = s.line;
        const what = s.what;
        return () => {
          throw new TemplateError('unavailable', `'${what}' is not available in this template: a template is one source`, {
            lineno: line,
            templateName: name,
          });
        };
      }
    }
  }

  /** Renders `body` into a private buffer (child scope), then hands the text to `done`. */
  private capture(body: Ex, done: (f: Frame, text: string, out: Out) => unknown, line: number): Ex {
    const name = this.templateName;
    return (f, out) => {
      const inner = f.child();
      const buf = new Out(f.state.limits.maxOutputBytes);
      const finish = (): Flow => {
        try {
          const r = done(f, buf.take(), out);
          if (r instanceof Promise)
            return r.then(
              () => undefined,
              (e: unknown) => Promise.reject(annotate(e, line, name)),
            );
          return undefined;
        } catch (e) {
          throw annotate(e, line, name);
        }
      };
      const r = body(inner, buf);
      if (r instanceof Promise) return r.then(finish);
      return finish();
    };
  }

  private macroFactory(name: string, args: string[], defaults: Expr[], body: Stmt[]): (f: Frame) => Macro {
    const defs = defaults.map((d) => this.expr(d));
    const savedAuto = this.autoescape;
    const compiled = this.compileBody(body);
    this.autoescape = savedAuto;
    const catchVarargs = usesName(body, 'varargs');
    const catchKwargs = usesName(body, 'kwargs');
    const usesCaller = usesName(body, 'caller');
    return (f) => new Macro(name, args, defs, compiled, f, catchVarargs, catchKwargs, usesCaller);
  }

  private assigner(t: Target): (f: Frame, v: unknown) => void {
    if (t.type === 'Name') {
      const n = t.name;
      return (f, v) => {
        f.set(n, v === undefined ? new Undefined(null) : v);
      };
    }
    if (t.type === 'NSRef') {
      const { name: nsName, attr } = t;
      return (f, v) => {
        const ns = lookup(f, nsName);
        if (!(ns instanceof Namespace)) throw typeError('cannot assign attribute on non-namespace object');
        if (isUnsafeName(attr)) throw typeError(`cannot assign attribute '${attr}'`);
        ns.vars.set(attr, v);
      };
    }
    const subs = t.items.map((x) => this.assigner(x));
    return (f, v) => {
      const items = unpack(v, subs.length);
      for (let i = 0; i < subs.length; i++) subs[i](f, items[i]);
    };
  }

  // ---------------------------------------------------------------- for loops

  private forLoop(s: Extract<Stmt, { type: 'For' }>): Ex {
    const name = this.templateName;
    const targets: string[] = [];
    targetNames(s.target, targets);
    // Jinja2 refuses it at compile time (TemplateAssertionError): the loop's own variable would be shadowed.
    if (targets.includes('loop')) this.fail("Can't assign to special loop variable in for-loop target.", s.line);
    const body = this.compileBody(s.body);
    const runner = new LoopRunner(
      lined(this.expr(s.iter), s.line, name),
      s.filter ? lined(this.expr(s.filter), s.line, name) : null,
      body,
      s.orelse.length ? this.compileBody(s.orelse) : null,
      this.assigner(s.target),
      usesName(s.body, 'loop') || s.recursive,
      assignedNames(s.body),
      s.recursive,
      s.line,
      name,
      s.recursive ? null : loopItemReads(s.target, s.filter, s.body),
    );
    this.setupPrefetch(s, body, runner);
    this.stmtSplit = { head: runner.iterEv, expr: s.iter, tail: (f, out, v) => runner.start(f, out, v), line: s.line, name };
    return (f, out) => runner.exec(f, out);
  }

  /**
   * `{% for row in rows %}` over host objects: the body's top-level `row.attr` heads (printed values, if tests,
   * inner loop sources) are fetched for a chunk of rows at once and awaited with one Promise.allSettled, so the
   * body then runs synchronously instead of resuming an async continuation per attribute per row. Only plain
   * `name.attr` reads of the loop variable qualify, only when the body never rebinds it and the loop is not
   * recursive. A prefetched value is used only while the loop variable is that very object; when a fetch fails
   * the body reads from the host as usual (the error surfaces where it is read), and a fetch the body never
   * reaches (break, an if) is dropped. This relies on getAttr being a read (Cairn's proxies read fields or
   * trigger their batch loader, which loads a relation for the whole list anyway): it may run ahead of the row.
   */
  private setupPrefetch(s: Extract<Stmt, { type: 'For' }>, body: Ex, runner: LoopRunner): void {
    if (s.target.type !== 'Name' || s.recursive) return;
    const v = s.target.name;
    if (assignedNames(s.body).includes(v)) return;
    const attrs: string[] = [];
    for (const sp of BODY_SPLITS.get(body) ?? []) {
      if (sp === null) continue;
      const e = sp.expr;
      if (e.type !== 'Getattr' || e.node.type !== 'Name' || e.node.name !== v || isUnsafeName(e.attr)) continue;
      let slot = attrs.indexOf(e.attr);
      if (slot < 0) slot = attrs.push(e.attr) - 1;
      const orig = sp.head;
      const attr = e.attr;
      if (DICT_METHOD_NAMES.has(attr)) {
        const item = this.expr(e.node);
        sp.head = (f) => {
          if (runner.curItem === NOT_FETCHED) return orig(f);
          const o = item(f);
          if (o === runner.curItem) {
            const c = runner.curVals[runner.curBase + slot];
            if (c !== NOT_FETCHED) return c;
          }
          return orig(f);
        };
        continue;
      }
      // The read itself, with the prefetched value first: one closure rather than a wrapper calling the read
      // (a call V8 cannot inline, made for every row of plain data too).
      const read = ownDataReader(attr);
      sp.head = (f) => {
        let o = f.get(v);
        if (o === undefined) o = lookup(f, v);
        if (o === runner.curItem) {
          const c = runner.curVals[runner.curBase + slot];
          if (c !== NOT_FETCHED) return c;
        }
        const x = read(o);
        if (x !== NOT_PLAIN) return x;
        return o instanceof Promise ? o.then((y) => getAttr(y, attr)) : getAttr(o, attr);
      };
    }
    if (attrs.length) {
      runner.prefetchAttrs = attrs;
      runner.prefetchPlain = attrs.map((a) => !isUnsafeName(a));
    }
  }

  // ---------------------------------------------------------------- expressions

  expr(e: Expr): Ev {
    switch (e.type) {
      case 'Const': {
        const v = e.value;
        return () => v;
      }
      case 'Name': {
        const n = e.name;
        return (f) => {
          const v = f.get(n);
          return v !== undefined ? v : lookup(f, n);
        };
      }
      case 'List': {
        const items = e.items.map((x) => this.expr(x));
        return (f) => then1(allMaybe(items.map((x) => x(f))), (xs) => {
          const arr = (xs as unknown[]).slice();
          OWNED.add(arr);
          return arr;
        });
      }
      case 'Tuple': {
        const items = e.items.map((x) => this.expr(x));
        return (f) => then1(allMaybe(items.map((x) => x(f))), (xs) => tuple((xs as unknown[]).slice()));
      }
      case 'Dict': {
        const pairs = e.pairs.map(([k, v]) => [this.expr(k), this.expr(v)] as const);
        return (f) => {
          const flat: unknown[] = [];
          for (const [k, v] of pairs) flat.push(k(f), v(f));
          return then1(allMaybe(flat), (xs) => {
            const arr = xs as unknown[];
            const m = newDict();
            for (let i = 0; i < arr.length; i += 2) dictSet(m, normalizeKey(arr[i]), arr[i + 1]);
            return m;
          });
        };
      }
      case 'BinOp':
        return this.binop(e.op, this.expr(e.left), this.expr(e.right));
      case 'Concat': {
        const items = e.items.map((x) => this.expr(x));
        return (f) =>
          then1(allMaybe(items.map((x) => x(f))), (xs) => {
            let s = '';
            for (const x of xs as unknown[]) s += typeof x === 'string' ? x : toStr(x);
            return s;
          });
      }
      case 'Unary': {
        const a = this.expr(e.operand);
        if (e.op === 'not') return (f) => then1(a(f), (x) => !truthy(x));
        const op = e.op === 'neg' ? neg : pos;
        return (f) => then1(a(f), op);
      }
      case 'Compare':
        return this.compare(e);
      case 'And': {
        const l = this.expr(e.left);
        const r = this.expr(e.right);
        return (f) => {
          const a = l(f);
          if (a instanceof Promise) return andLater(a, f, r);
          return truthy(a) ? r(f) : a;
        };
      }
      case 'Or': {
        const l = this.expr(e.left);
        const r = this.expr(e.right);
        return (f) => {
          const a = l(f);
          if (a instanceof Promise) return orLater(a, f, r);
          return truthy(a) ? a : r(f);
        };
      }
      case 'CondExpr': {
        // As in an if statement (Jinja2's soft frame): an unknown filter or test fails only when evaluated.
        this.ifDepth++;
        const test = this.expr(e.test);
        const a = this.expr(e.expr1);
        const b = e.expr2 ? this.expr(e.expr2) : null;
        this.ifDepth--;
        const other = b ?? (() => new Undefined('the inline if-expression evaluated to false and no else section was defined.'));
        return (f) => {
          const t = test(f);
          if (t instanceof Promise) return pickLater(t, f, a, other);
          return truthy(t) ? a(f) : other(f);
        };
      }
      case 'Getattr': {
        const obj = this.expr(e.node);
        const attr = e.attr;
        if (isUnsafeName(attr) || attr === 'items' || attr === 'keys' || attr === 'values' || attr === 'get')
          return (f) => then1(obj(f), (o) => getAttr(o, attr));
        // A dict method's name (`d.items`) is the method, not a key of that name: never the fast path.
        if (DICT_METHOD_NAMES.has(attr)) return (f) => then1(obj(f), (o) => getAttr(o, attr));
        const read = ownDataReader(attr);
        if (e.node.type === 'Name') {
          // `row.name`, the commonest read: the name looked up here rather than through a closure of its own.
          const n = e.node.name;
          return (f) => {
            let o = f.get(n);
            if (o === undefined) o = lookup(f, n);
            const v = read(o);
            if (v !== NOT_PLAIN) return v;
            return o instanceof Promise ? o.then((x) => getAttr(x, attr)) : getAttr(o, attr);
          };
        }
        return (f) => {
          const o = obj(f);
          const v = read(o);
          if (v !== NOT_PLAIN) return v;
          return o instanceof Promise ? o.then((x) => getAttr(x, attr)) : getAttr(o, attr);
        };
      }
      case 'Getitem': {
        const obj = this.expr(e.node);
        if (e.arg.type === 'Slice') {
          const parts = [e.arg.start, e.arg.stop, e.arg.step].map((x) => (x ? this.expr(x) : () => null));
          return (f) =>
            then1(allMaybe([obj(f), parts[0](f), parts[1](f), parts[2](f)]), (xs) => {
              const [o, a, b, c] = xs as unknown[];
              return sliceValue(o, a, b, c);
            });
        }
        const key = this.expr(e.arg);
        return (f) => {
          const o = obj(f);
          const k = key(f);
          if (o instanceof Promise || k instanceof Promise) return then2(o, k, getItem);
          return getItem(o, k);
        };
      }
      case 'Slice':
        return this.fail('slice outside of a subscript', e.line);
      case 'Call':
        return this.callExpr(e, null);
      case 'Filter':
        return this.filter(e, e.node ? this.expr(e.node) : null);
      case 'Test':
        return this.test(e);
    }
  }

  private binop(op: string, l: Ev, r: Ev): Ev {
    let fn: (a: unknown, b: unknown, f: Frame) => unknown;
    switch (op) {
      case '+':
        fn = add;
        break;
      case '-':
        fn = sub;
        break;
      case '*':
        fn = (a, b, f) => mul(a, b, f.state);
        break;
      case '/':
        fn = div;
        break;
      case '//':
        fn = floordiv;
        break;
      case '%':
        fn = (a, b, f) => mod(a, b, f.state);
        break;
      case '**':
        fn = pow;
        break;
      default:
        throw new Error(`unknown operator ${op}`);
    }
    return (f) => {
      const a = l(f);
      const b = r(f);
      if (a instanceof Promise || b instanceof Promise) return binaryLater(a, b, fn, f);
      return fn(a, b, f);
    };
  }

  private compare(e: Extract<Expr, { type: 'Compare' }>): Ev {
    const first = this.expr(e.expr);
    const ops = e.ops.map(([op, x]) => [op, this.expr(x)] as const);
    const cmp = (op: string, a: unknown, b: unknown): unknown => {
      switch (op) {
        case '==':
          return pyEquals(a, b);
        case '!=':
          return !pyEquals(a, b);
        case '<':
          return pyCompare(a, b, '<') < 0;
        case '<=':
          return pyCompare(a, b, '<=') <= 0;
        case '>':
          return pyCompare(a, b, '>') > 0;
        case '>=':
          return pyCompare(a, b, '>=') >= 0;
        case 'in':
        case 'notin': {
          if (isTemplateObject(b)) return then1(toList(b), (l) => (op === 'in') === contains(l, a));
          return (op === 'in') === contains(b, a);
        }
      }
      return false;
    };
    const step = (f: Frame, left: unknown, i: number): unknown => {
      const [op, ev] = ops[i];
      return then1(ev(f), (right) =>
        then1(cmp(op, left, right), (ok) => {
          if (!ok || i === ops.length - 1) return ok;
          return step(f, right, i + 1);
        }),
      );
    };
    if (ops.length === 1) {
      const [op, ev] = ops[0];
      return (f) => {
        const a = first(f);
        const b = ev(f);
        if (a instanceof Promise || b instanceof Promise) return then2(a, b, (x, y) => cmp(op, x, y));
        return cmp(op, a, b);
      };
    }
    return (f) => then1(first(f), (a) => step(f, a, 0));
  }

  /** Evaluates call arguments: positional, keyword, *args and **kwargs. */
  private args(c: CallArgs): (f: Frame) => [unknown[], Kwargs] | Promise<[unknown[], Kwargs]> {
    const pos = c.args.map((a) => this.expr(a));
    const kws = c.kwargs.map(([k, v]) => [k, this.expr(v)] as const);
    const dynA = c.dynArgs ? this.expr(c.dynArgs) : null;
    const dynK = c.dynKwargs ? this.expr(c.dynKwargs) : null;
    if (!kws.length && !dynA && !dynK) {
      const none: [unknown[], Kwargs] = [EMPTY_ARGS, EMPTY_KWARGS];
      if (!pos.length) return () => none;
      if (c.args.every((a) => a.type === 'Const')) {
        // Constant arguments (`default("none")`, `join(", ")`): evaluated once. Callees never mutate args.
        const fixed: [unknown[], Kwargs] = [pos.map((p) => p(null as unknown as Frame)), EMPTY_KWARGS];
        return () => fixed;
      }
      return (f) => {
        const vals = allMaybe(pos.map((p) => p(f)));
        return vals instanceof Promise ? vals.then((v) => [v, EMPTY_KWARGS]) : [vals, EMPTY_KWARGS];
      };
    }
    return (f) => {
      const all: unknown[] = pos.map((p) => p(f));
      for (const [, v] of kws) all.push(v(f));
      all.push(dynA ? dynA(f) : null, dynK ? dynK(f) : null);
      return then1(allMaybe(all), (xs) => {
        const vals = xs as unknown[];
        const args = vals.slice(0, pos.length);
        const kwargs = Object.create(null) as Record<string, unknown>;
        kws.forEach(([k], i) => {
          kwargs[k] = vals[pos.length + i];
        });
        const da = vals[vals.length - 2];
        const dk = vals[vals.length - 1];
        if (dynA) {
          if (Array.isArray(da)) args.push(...da);
          else if (!isUndefined(da)) throw typeError('argument after * must be an iterable');
        }
        if (dynK) {
          if (isDict(dk)) for (const [k, v] of dictEntries(dk)) kwargs[toStr(k)] = v;
          else if (!isUndefined(dk)) throw typeError('argument after ** must be a mapping');
        }
        return [args, kwargs];
      }) as [unknown[], Kwargs] | Promise<[unknown[], Kwargs]>;
    };
  }

  private callExpr(e: Extract<Expr, { type: 'Call' }>, callerFactory: ((f: Frame) => Macro) | null): Ev {
    const argsEv = this.args(e);
    const withCaller = (f: Frame, kwargs: Kwargs): Kwargs =>
      callerFactory ? { ...kwargs, caller: callerFactory(f) } : kwargs;
    if (e.node.type === 'Getattr') {
      const objEv = this.expr(e.node.node);
      const name = e.node.attr;
      return (f) => {
        const o = objEv(f);
        const a = argsEv(f);
        if (o instanceof Promise || a instanceof Promise)
          return then2(o, a, (obj, y) => callMethod(obj, name, (y as [unknown[], Kwargs])[0], withCaller(f, (y as [unknown[], Kwargs])[1]), f.state));
        return callMethod(o, name, a[0], withCaller(f, a[1]), f.state);
      };
    }
    const fnEv = this.expr(e.node);
    return (f) => {
      const fn = fnEv(f);
      const a = argsEv(f);
      if (fn instanceof Promise || a instanceof Promise)
        return then2(fn, a, (x, y) => callValue(x, (y as [unknown[], Kwargs])[0], withCaller(f, (y as [unknown[], Kwargs])[1]), f.state));
      return callValue(fn, a[0], withCaller(f, a[1]), f.state);
    };
  }

  private filter(e: Extract<Expr, { type: 'Filter' }>, input: Ev | null): Ev {
    const impl = this.registry.filters.get(e.name) ?? this.missing('filter', e.name, e.line);
    const inner = input ?? (() => new Undefined(null));
    const argsEv = this.args(e);
    return (f) => {
      const v = inner(f);
      const a = argsEv(f);
      if (v instanceof Promise || a instanceof Promise) return applyLater(v, a, impl, f.state);
      return impl(f.state, v, a[0], a[1]);
    };
  }

  /** A filter chain of a filter block / set block, applied to a given value. */
  private filterChain(e: Expr): (f: Frame, v: unknown) => unknown {
    const steps: Extract<Expr, { type: 'Filter' }>[] = [];
    let cur: Expr | null = e;
    while (cur && cur.type === 'Filter') {
      steps.unshift(cur);
      cur = cur.node;
    }
    const compiled = steps.map((s) => {
      const impl = this.registry.filters.get(s.name) ?? this.missing('filter', s.name, s.line);
      return [impl, this.args(s)] as const;
    });
    const n = compiled.length;
    const only = steps[0]!;
    if (n === 1 && !only.kwargs.length && !only.dynArgs && !only.dynKwargs && only.args.every((a) => a.type === 'Const')) {
      // One filter with fixed arguments (`|upper`, `|default("none")`), the common case: its arguments once.
      const [impl, argsEv] = compiled[0]!;
      const [args, kwargs] = argsEv(null as unknown as Frame) as [unknown[], Kwargs];
      return (f, v) => (v instanceof Promise ? v.then((x) => impl(f.state, x, args, kwargs)) : impl(f.state, v, args, kwargs));
    }
    // Synchronous values go through without a closure per step (this runs once per printed host value).
    const from = (f: Frame, v: unknown, start: number): unknown => {
      let acc: unknown = v;
      for (let i = start; i < n; i++) {
        const [impl, argsEv] = compiled[i];
        const a = argsEv(f);
        if (acc instanceof Promise || a instanceof Promise) {
          const next = i + 1;
          return then2(acc, a, (x, y) =>
            from(f, impl(f.state, x, (y as [unknown[], Kwargs])[0], (y as [unknown[], Kwargs])[1]), next),
          );
        }
        acc = impl(f.state, acc, a[0], a[1]);
      }
      return acc;
    };
    return (f, v) => from(f, v, 0);
  }

  private test(e: Extract<Expr, { type: 'Test' }>): Ev {
    const impl = this.registry.tests.get(e.name) ?? this.missing('test', e.name, e.line);
    const inner = this.expr(e.node);
    const argsEv = this.args(e);
    return (f) => {
      const v = inner(f);
      const a = argsEv(f);
      if (v instanceof Promise || a instanceof Promise) return then1(applyLater(v, a, impl, f.state), truthy);
      return then1(impl(f.state, v, a[0], a[1]), truthy);
    };
  }
}

const DICT_METHOD_NAMES = new Set(['items', 'keys', 'values', 'get', 'update', 'pop', 'setdefault', 'copy', 'clear', 'popitem']);

function normalizeKey(k: unknown): unknown {
  if (Array.isArray(k) || isDict(k)) throw typeError(`unhashable type: '${Array.isArray(k) ? 'list' : 'dict'}'`);
  return k;
}

function stripFlow(r: Flow): Flow {
  if (r instanceof Promise) return r.then(() => undefined);
  return undefined;
}

/** Runs statements in order; switches to Promise chaining from the first statement that goes async. */
export function seq(stmts: Ex[]): Ex {
  const n = stmts.length;
  if (n === 0) return () => undefined;
  if (n === 1) return stmts[0];
  const splits = stmts.map((s) => SPLITS.get(s) ?? null);
  const runFrom = (f: Frame, out: Out, start: number): Flow => {
    for (let i = start; i < n; i++) {
      const sp = splits[i];
      let r: Flow;
      if (sp !== null) {
        // Evaluated as head + tail here too, so the first host value of a list is awaited directly as well.
        let v: unknown;
        try {
          v = sp.head(f);
        } catch (e) {
          throw annotate(e, sp.line, sp.name);
        }
        if (v instanceof Promise) return seqAsync(stmts, splits, f, out, i, v, true);
        r = sp.tail(f, out, v);
      } else r = stmts[i](f, out);
      if (r !== undefined) {
        if (r instanceof Promise) return seqAsync(stmts, splits, f, out, i, r, false);
        return r;
      }
    }
    return undefined;
  };
  return (f, out) => runFrom(f, out, 0);
}

/** The rest of a statement list once one statement went async: awaiting native Promises in one async function
 *  costs far less than a `.then` closure per statement. */
async function seqAsync(
  stmts: Ex[],
  splits: (Split | null)[],
  f: Frame,
  out: Out,
  at: number,
  pending: Promise<unknown>,
  pendingIsHead: boolean,
): Promise<Signal> {
  // `pending` is statement `at`'s head value (its tail still to run) or its whole result.
  let first: unknown;
  if (pendingIsHead) {
    const sp = splits[at] as Split;
    let v: unknown;
    try {
      v = await pending;
    } catch (e) {
      throw annotate(e, sp.line, sp.name);
    }
    first = sp.tail(f, out, v);
    if (first instanceof Promise) first = await (first as Promise<unknown>);
  } else first = await pending;
  if (first !== undefined) return first as Signal;
  for (let i = at + 1; i < stmts.length; i++) {
    const sp = splits[i];
    let r: unknown;
    if (sp !== null) {
      let v: unknown;
      try {
        v = sp.head(f);
        if (v instanceof Promise) v = await (v as Promise<unknown>);
      } catch (e) {
        throw annotate(e, sp.line, sp.name);
      }
      r = sp.tail(f, out, v);
    } else r = stmts[i](f, out);
    if (r instanceof Promise) r = await (r as Promise<unknown>);
    if (r !== undefined) return r as Signal;
  }
  return undefined;
}

/**
 * A statement seen as `head` (an expression that may be a host Promise) then `tail` (what the statement does
 * with its value): stmt(f, out) behaves as tail(f, out, await head(f)). seqAsync uses it to await host values
 * directly; errors of head are annotated with `line` by the caller, tail annotates its own.
 */
interface Split {
  head: Ev;
  /** The AST of head, so a for loop can recognise `item.attr` heads it prefetches. */
  expr: Expr;
  tail: (f: Frame, out: Out, v: unknown) => Flow;
  line: number;
  name: string | undefined;
}
const SPLITS = new WeakMap<Ex, Split>();
/** The splits of a compiled body's top-level statements (the statements every iteration reaches first). */
const BODY_SPLITS = new WeakMap<Ex, (Split | null)[]>();


type Signal = undefined | typeof BREAK | typeof CONTINUE;

/** Python unpacking for `for a, b in ...` and `set a, b = ...`. */
function unpack(v: unknown, n: number): unknown[] {
  const items = iterable(v);
  if (!Array.isArray(items)) throw typeError('cannot unpack an asynchronous iterable');
  if (items.length < n) throw typeError(`not enough values to unpack (expected ${n}, got ${items.length})`);
  if (items.length > n) throw typeError(`too many values to unpack (expected ${n})`);
  return items;
}

/** Applies a loop's inline `if` to an array; the condition sees the loop variables in its own scope. */
function prefilter(
  outer: Frame,
  src: unknown[],
  assign: (f: Frame, v: unknown) => void,
  ev: Ev,
): unknown[] | Promise<unknown[]> {
  const fr = outer.child();
  const out: unknown[] = [];
  const state = outer.state;
  for (let i = 0; i < src.length; i++) {
    state.work(1);
    assign(fr, src[i]);
    const c = ev(fr);
    if (c instanceof Promise) {
      const rest = src.slice(i + 1);
      const item = src[i];
      return c.then(async (ok) => {
        if (truthy(ok)) out.push(item);
        for (const x of rest) {
          assign(fr, x);
          if (truthy(await ev(fr))) out.push(x);
        }
        return out;
      });
    }
    if (truthy(c)) out.push(src[i]);
  }
  return out;
}

/**
 * One compiled for statement. Written as a class with methods rather than closures made per run: a nested loop
 * runs once per outer row, and closure creation (plus the name bookkeeping transpilers add to named closures)
 * showed up as a large share of render time.
 */
class LoopRunner {
  constructor(
    readonly iterEv: Ev,
    private readonly filterEv: Ev | null,
    private readonly body: Ex,
    private readonly orelse: Ex | null,
    private readonly assign: (f: Frame, v: unknown) => void,
    private readonly usesLoop: boolean,
    private readonly locals: string[],
    private readonly recursive: boolean,
    private readonly line: number,
    private readonly name: string | undefined,
    /** All the body does with each item, when that is reading attributes (see loopItemReads); else null. */
    private readonly itemReads: ItemReads | null,
  ) {}

  /** Attributes of the loop variable prefetched per chunk (see Compiler.setupPrefetch), or null. */
  prefetchAttrs: string[] | null = null;
  /** Per prefetched attribute: a name getAttr's checks let through, so a host object is asked for it directly. */
  prefetchPlain: boolean[] = [];
  // The values of the item the body is running for right now (heads compare the object before using them).
  curItem: unknown = NOT_FETCHED;
  curVals: unknown[] = [];
  curBase = 0;

  /** Makes item i's prefetched values current; a Promise when its chunk first had to be fetched and awaited.
   *  The chunk lives in the run's own state, so concurrent renders of one template never fight over it. */
  prefetch(st: Completion, arr: unknown[], i: number): Promise<void> | undefined {
    if (st.chunkVals === null || i < st.chunkStart || i >= st.chunkEnd) {
      const p = this.fetchChunk(st, arr, i, this.prefetchAttrs as string[]);
      if (p !== undefined) return p;
    }
    // A chunk without host objects has nothing prefetched: heads read the item as usual.
    this.curItem = st.chunkHosts ? arr[i] : NOT_FETCHED;
    this.curVals = st.chunkVals as unknown[];
    this.curBase = (i - st.chunkStart) * (this.prefetchAttrs as string[]).length;
    return undefined;
  }

  private fetchChunk(st: Completion, arr: unknown[], start: number, attrs: string[]): Promise<void> | undefined {
    const end = Math.min(arr.length, start + PREFETCH_CHUNK);
    const k = attrs.length;
    let hosts = false;
    for (let j = start; j < end && !hosts; j++) hosts = isTemplateObject(arr[j]);
    st.chunkHosts = hosts;
    const vals = hosts ? new Array<unknown>((end - start) * k).fill(NOT_FETCHED) : EMPTY_VALS;
    const pending: Promise<unknown>[] = [];
    const at: number[] = [];
    const plain = this.prefetchPlain;
    for (let j = start; hosts && j < end; j++) {
      const item = arr[j];
      if (!isTemplateObject(item)) continue;
      for (let a = 0; a < k; a++) {
        let v: unknown;
        try {
          v = plain[a] ? hostAttr(item, attrs[a]!) : getAttr(item, attrs[a]);
        } catch {
          continue; // left unfetched: the real read raises it, with its line
        }
        const pos = (j - start) * k + a;
        if (v instanceof Promise) {
          pending.push(v);
          at.push(pos);
        } else vals[pos] = v;
      }
    }
    st.chunkStart = start;
    st.chunkEnd = end;
    st.chunkVals = vals;
    this.curItem = NOT_FETCHED;
    if (!pending.length) return this.prefetch(st, arr, start);
    // Promise.all, not allSettled (several times slower): if any fetch rejects, the whole chunk stays unfetched
    // and each read asks the host again, so an error surfaces only where and when the template reads it.
    return Promise.all(pending).then(
      (rs) => {
        for (let m = 0; m < rs.length; m++) vals[at[m]] = rs[m];
        return this.prefetch(st, arr, start);
      },
      () => this.prefetch(st, arr, start),
    );
  }

  exec(f: Frame, out: Out): Flow {
    const v = this.iterEv(f);
    if (v instanceof Promise) return v.then((x) => this.start(f, out, x));
    return this.start(f, out, v);
  }

  start(f: Frame, out: Out, value: unknown): Flow {
    let iterated: boolean | Promise<boolean>;
    try {
      iterated = this.run(f, value, out, 0);
    } catch (e) {
      throw annotate(e, this.line, this.name);
    }
    if (iterated instanceof Promise)
      return iterated.then(
        (it) => (!it && this.orelse ? stripFlow(this.orelse(f.child(), out)) : undefined),
        (e: unknown) => Promise.reject(annotate(e, this.line, this.name)),
      );
    if (!iterated && this.orelse) return stripFlow(this.orelse(f.child(), out));
    return undefined;
  }

  /** Runs the loop over `value` in a child scope of `outer`; answers whether the body ran at least once. */
  run(outer: Frame, value: unknown, out: Out, depth0: number): boolean | Promise<boolean> {
    const frame = outer.child();
    const loop = this.usesLoop ? new LoopContext(depth0, this.recursive ? new Recursion(this, outer, depth0) : null) : null;
    // A host list that hands out batches runs each batch as an array (see TemplateObject.iterateBatches); a loop
    // using `loop` needs look-ahead across batch ends and takes the items one by one instead.
    if (loop === null && isTemplateObject(value) && value.iterateBatches !== undefined) {
      let batches: AsyncIterator<readonly unknown[]>;
      try {
        batches = value.iterateBatches(this.itemReads);
      } catch (err) {
        throw hostError(err);
      }
      return runBatches(this, frame, outer, out, batches, this.filterEv);
    }
    const src = iterable(value);
    if (Array.isArray(src)) {
      const prepared = this.filterEv ? prefilter(outer, src, this.assign, this.filterEv) : src;
      if (prepared instanceof Promise) return prepared.then((arr) => this.runPrepared(frame, out, arr, loop));
      return this.runPrepared(frame, out, prepared, loop);
    }
    return runStream(this, frame, outer, out, src, loop, this.filterEv ? { assign: this.assign, ev: this.filterEv } : null);
  }

  // Jinja2 runs a for's else block unless some iteration reached the end of the body: an iteration left by
  // break or continue does not count (its `iterated` flag is set last in the body).
  private runPrepared(frame: Frame, out: Out, arr: unknown[], loop: LoopContext | null): boolean | Promise<boolean> {
    if (loop) loop.arr = arr;
    // Prefetched values never outlive one run of the loop: the same compiled template renders again later (or
    // concurrently) with host data that may have changed.
    this.curItem = NOT_FETCHED;
    const st: Completion = { done: false, broke: false, chunkStart: 0, chunkEnd: 0, chunkVals: null, chunkHosts: false };
    const r = runArray(this, frame, out, arr, 0, loop, st);
    if (r instanceof Promise) return r.then(() => st.done);
    return st.done;
  }

  /** The loop target's assignment, for an inline `if` applied per batch. */
  get assignItem(): (f: Frame, v: unknown) => void {
    return this.assign;
  }

  setItem(frame: Frame, loop: LoopContext | null, item: unknown): void {
    const locals = this.locals;
    for (let i = 0; i < locals.length; i++) frame.delete(locals[i]);
    try {
      this.assign(frame, item);
    } catch (e) {
      throw annotate(e, this.line, this.name);
    }
    if (loop) frame.set('loop', loop);
  }

  runBody(frame: Frame, out: Out): Flow {
    return this.body(frame, out);
  }
}

/** `loop(children)` of a recursive loop: renders the same loop one level deeper and returns the text. */
class Recursion {
  constructor(
    private readonly runner: LoopRunner,
    private readonly outer: Frame,
    private readonly depth0: number,
  ) {}
  call(v: unknown): unknown {
    const state = this.outer.state;
    if (state.depth >= state.limits.maxRecursionDepth)
      throw new TemplateError('limit', `maximum recursion depth of ${state.limits.maxRecursionDepth} exceeded in recursive loop`);
    const buf = new Out(state.limits.maxOutputBytes);
    state.depth++;
    let r: boolean | Promise<boolean>;
    try {
      r = this.runner.run(this.outer, v, buf, this.depth0 + 1);
    } catch (e) {
      state.depth--;
      throw e;
    }
    if (r instanceof Promise)
      return r.then(
        () => {
          state.depth--;
          return buf.take();
        },
        (e: unknown) => {
          state.depth--;
          throw e;
        },
      );
    state.depth--;
    return buf.take();
  }
}

/** Rows whose attributes a for loop fetches ahead in one go (bounded: a break wastes at most this many). */
const PREFETCH_CHUNK = 256;
const NOT_FETCHED: unique symbol = Symbol('not fetched');

interface Completion {
  done: boolean;
  /** The body left the loop with break (a batched loop then pulls no further batch). */
  broke: boolean;
  /** This run's prefetched chunk (see LoopRunner.prefetch): rows [chunkStart, chunkEnd). */
  chunkStart: number;
  chunkEnd: number;
  chunkVals: unknown[] | null;
  /** Whether the chunk holds any host object (plain data is never prefetched). */
  chunkHosts: boolean;
}

const EMPTY_VALS: unknown[] = [];

function runArray(
  runner: LoopRunner,
  frame: Frame,
  out: Out,
  arr: unknown[],
  start: number,
  loop: LoopContext | null,
  st: Completion,
): Flow {
  const state = frame.state;
  const n = arr.length;
  for (let i = start; i < n; i++) {
    if (runner.prefetchAttrs !== null) {
      const p = runner.prefetch(st, arr, i);
      if (p !== undefined) {
        const at = i;
        return p.then(() => runArray(runner, frame, out, arr, at, loop, st));
      }
    }
    if (loop) loop.index0 = i;
    runner.setItem(frame, loop, arr[i]);
    const r = runner.runBody(frame, out);
    if (r === undefined) st.done = true;
    else {
      if (r === BREAK) {
        st.broke = true;
        return undefined;
      }
      if (r instanceof Promise) return runArrayAsync(runner, frame, out, arr, i, loop, st, r);
    }
    const t = state.tick();
    if (t !== undefined) {
      const next = i + 1;
      return t.then(() => runArray(runner, frame, out, arr, next, loop, st));
    }
    if (out.wantFlush) {
      const next = i + 1;
      return out.flush().then(() => runArray(runner, frame, out, arr, next, loop, st));
    }
  }
  return undefined;
}

/** The rest of an array loop once a body went async (host data): one async function for the whole rest. */
async function runArrayAsync(
  runner: LoopRunner,
  frame: Frame,
  out: Out,
  arr: unknown[],
  index: number,
  loop: LoopContext | null,
  st: Completion,
  pending: Promise<Flow>,
): Promise<Signal> {
  const state = frame.state;
  const n = arr.length;
  let i = index;
  let r: unknown = await (pending as Promise<unknown>);
  for (;;) {
    if (r === BREAK) {
      st.broke = true;
      return undefined;
    }
    if (r === undefined) st.done = true;
    const t = state.tick();
    if (t) await t;
    if (out.wantFlush) await out.flush();
    if (++i >= n) return undefined;
    if (runner.prefetchAttrs !== null) {
      const p = runner.prefetch(st, arr, i);
      if (p !== undefined) await p;
    }
    if (loop) loop.index0 = i;
    runner.setItem(frame, loop, arr[i]);
    r = runner.runBody(frame, out);
    if (r instanceof Promise) r = await (r as Promise<unknown>);
  }
}

export function afterIteration(
  runner: LoopRunner,
  frame: Frame,
  out: Out,
  arr: unknown[],
  next: number,
  loop: LoopContext | null,
  st: Completion,
): Flow {
  const t = frame.state.tick();
  if (t) return t.then(() => runArray(runner, frame, out, arr, next, loop, st));
  if (out.wantFlush) return out.flush().then(() => runArray(runner, frame, out, arr, next, loop, st));
  return runArray(runner, frame, out, arr, next, loop, st);
}

/**
 * A for loop over a host list that hands out batches: each batch runs as an array (prefetch, synchronous bodies,
 * the inline `if` applied per batch), so a streamed 50,000-row list costs one await per batch, not per row.
 */
async function runBatches(
  runner: LoopRunner,
  frame: Frame,
  outer: Frame,
  out: Out,
  batches: AsyncIterator<readonly unknown[]>,
  filterEv: Ev | null,
): Promise<boolean> {
  const st: Completion = { done: false, broke: false, chunkStart: 0, chunkEnd: 0, chunkVals: null, chunkHosts: false };
  let finished = false;
  try {
    for (;;) {
      let next: IteratorResult<readonly unknown[]>;
      try {
        next = await batches.next();
      } catch (err) {
        throw hostError(err);
      }
      if (next.done) {
        finished = true;
        break;
      }
      // Typed readonly for the host; runArray and prefilter only read it.
      let arr = next.value as unknown[];
      if (filterEv) {
        const kept = prefilter(outer, arr, runner.assignItem, filterEv);
        arr = kept instanceof Promise ? await kept : kept;
      }
      // Prefetched values belong to one batch: indexes restart at 0 in the next.
      st.chunkVals = null;
      runner.curItem = NOT_FETCHED;
      const r = runArray(runner, frame, out, arr, 0, null, st);
      if (r instanceof Promise) await (r as Promise<unknown>);
      if (st.broke) break;
    }
  } finally {
    if (!finished && typeof batches.return === 'function') {
      try {
        await batches.return();
      } catch {
        // closing a host cursor must not hide the original error
      }
    }
  }
  return st.done;
}

/** A for loop over an async iterable: items are pulled one at a time (plus one look-ahead when `loop` is used). */
async function runStream(
  runner: LoopRunner,
  frame: Frame,
  outer: Frame,
  out: Out,
  src: AsyncIterable<unknown>,
  loop: LoopContext | null,
  filter: { assign: (f: Frame, v: unknown) => void; ev: Ev } | null,
): Promise<boolean> {
  const state = frame.state;
  const it = src[Symbol.asyncIterator]();
  const filterFrame = filter ? outer.child() : null;
  const buffered: unknown[] = [];
  let exhausted = false;
  const pull = async (): Promise<unknown> => (buffered.length ? buffered.shift() : pullRaw());
  const pullRaw = async (): Promise<unknown> => {
    while (!exhausted) {
      const r = await it.next();
      if (r.done) {
        exhausted = true;
        break;
      }
      if (filter && filterFrame) {
        filter.assign(filterFrame, r.value);
        if (!truthy(await filter.ev(filterFrame))) continue;
      }
      return r.value;
    }
    return NO_ITEM;
  };
  let iterated = false; // some iteration reached the end of the body (see runPrepared)
  let finished = false;
  try {
    let cur = await pull();
    let i = 0;
    while (cur !== NO_ITEM) {
      let nx: unknown = NO_ITEM;
      if (loop) {
        nx = await pull();
        loop.index0 = i;
        loop.next = nx;
        const seen = i;
        loop.streamLength = async () => {
          for (;;) {
            const v = await pullRaw();
            if (v === NO_ITEM) break;
            buffered.push(v);
          }
          // pull() shifts from `buffered` first, so the look-ahead and the rest are counted exactly once
          return seen + 1 + (loop.next === NO_ITEM ? 0 : 1) + buffered.length;
        };
      }
      runner.curItem = NOT_FETCHED; // streamed items are never prefetched
      runner.setItem(frame, loop, cur);
      let r: unknown = runner.runBody(frame, out);
      if (r instanceof Promise) r = await (r as Promise<unknown>);
      if (r === BREAK) break;
      if (r === undefined) iterated = true;
      const t = state.tick();
      if (t) await t;
      if (out.wantFlush) await out.flush();
      if (loop) loop.prev = cur;
      cur = loop ? nx : await pull();
      i++;
    }
    finished = exhausted;
  } finally {
    if (!finished && typeof it.return === 'function') {
      try {
        await it.return();
      } catch {
        // closing a host cursor must not hide the original error
      }
    }
  }
  return iterated;
}
