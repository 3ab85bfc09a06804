// What a template's source says about the attributes it reads, worked out from the AST before rendering. Callers
// that fetch data for a template use it to fetch less: the answer only ever says "this much is certainly enough"
// when every way the template could reach a value is one the walk recognises.
import type { Expr, Stmt, Target } from './ast.ts';
import { hasBuiltinMethod } from './methods.ts';
import { isUnsafeName } from './ops.ts';
import type { ItemReads } from './values.ts';

export interface AttributeReads {
  /** Whether the template may read attribute `attr` at all (named as `.attr`, in a string, or by a computed name). */
  mentions(attr: string): boolean;
  /**
   * The keys read below attribute `attr` (`x.attr.key`, `x.attr['key']`), when that is all the template does with
   * any `.attr`; null when some use takes the value whole (prints it, passes it on, iterates it, calls one of its
   * methods, names it in a string such as `map(attribute='attr')`) or never reads it at all.
   */
  keysBelow(attr: string): ReadonlySet<string> | null;
}

type Node = Expr | Stmt;

function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string';
}

/** Children of a node in source order, whatever its type: arrays (kwargs and dict pairs included) are walked through. */
function* childrenOf(node: Node): Generator<Node> {
  for (const key of Object.keys(node)) {
    if (key === 'type' || key === 'line') continue;
    yield* nodesIn((node as unknown as Record<string, unknown>)[key]);
  }
}

function* nodesIn(v: unknown): Generator<Node> {
  if (Array.isArray(v)) for (const item of v) yield* nodesIn(item);
  else if (isNode(v)) yield v;
}

/** Filters that read attributes named by their arguments (`attr('x')`, `map(attribute='x.y')`, `sort(attribute=…)`). */
const ATTRIBUTE_FILTERS = new Set(['attr', 'map', 'sort', 'groupby', 'selectattr', 'rejectattr', 'sum', 'unique', 'min', 'max']);

/**
 * Whether a node can read an attribute whose name only exists at render time: a subscript with a computed key,
 * or an attribute-taking filter given anything but constants. Then no attribute is known to be read in part.
 */
function readsComputedName(node: Node): boolean {
  if (node.type === 'Getitem') return node.arg.type !== 'Const' && node.arg.type !== 'Slice';
  if (node.type === 'Filter' && ATTRIBUTE_FILTERS.has(node.name)) {
    return node.dynArgs !== null || node.dynKwargs !== null || node.args.some((a) => a.type !== 'Const') || node.kwargs.some(([, v]) => v.type !== 'Const');
  }
  return false;
}

/** `parent` reads a constant key of `child` (which is its `node`): the key, else null. */
function constantKeyRead(parent: Node | null, child: Node, grandparent: Node | null): string | null {
  if (parent === null) return null;
  if (parent.type === 'Getattr' && parent.node === child) {
    // A dict method (items, get, keys...) answers before a key of that name: such a read is not a key read.
    if (hasBuiltinMethod({}, parent.attr)) return null;
    if (grandparent?.type === 'Call' && grandparent.node === parent) return null;
    return parent.attr;
  }
  if (parent.type === 'Getitem' && parent.node === child && parent.arg.type === 'Const' && typeof parent.arg.value === 'string') return parent.arg.value;
  return null;
}

export function attributeReads(body: readonly Stmt[]): AttributeReads {
  const keys = new Map<string, Set<string>>();
  const whole = new Set<string>();
  const named = new Set<string>();
  const strings: string[] = [];
  let computedNames = false;
  const walk = (node: Node, parent: Node | null, grandparent: Node | null): void => {
    if (readsComputedName(node)) computedNames = true;
    if (node.type === 'Getattr') {
      named.add(node.attr);
      const key = constantKeyRead(parent, node, grandparent);
      if (key === null) whole.add(node.attr);
      else {
        let set = keys.get(node.attr);
        if (!set) keys.set(node.attr, (set = new Set()));
        set.add(key);
      }
    } else if (node.type === 'Const' && typeof node.value === 'string') strings.push(node.value);
    for (const child of childrenOf(node)) walk(child, node, parent);
  };
  for (const stmt of body) walk(stmt, null, null);
  const inStrings = (attr: string): boolean => strings.some((s) => s.split('.').includes(attr));
  return {
    mentions(attr: string): boolean {
      return computedNames || named.has(attr) || inStrings(attr);
    },
    keysBelow(attr: string): ReadonlySet<string> | null {
      const found = keys.get(attr);
      if (!found || whole.has(attr) || computedNames) return null;
      // Attribute names also arrive as strings (attr('x'), map(attribute='x.y'), sort(attribute=...)).
      if (inStrings(attr)) return null;
      return found;
    },
  };
}

/**
 * The item reads of `{% for v in … %}`: null unless every use of `v` in the body and the loop's `if` is `v.attr`
 * with a constant name that is safe (isUnsafeName), not a dict method's (on a plain object those answer
 * differently) and not called. Anything else (`{{ v }}`, `v['x']`, `v|attr('x')`, `m(v)`, `{% set v = … %}`, an
 * inner loop over `v` or binding `v`) takes the item whole, and the loop must have the item itself.
 */
export function loopItemReads(target: Target, filter: Expr | null, body: readonly Stmt[]): ItemReads | null {
  if (target.type !== 'Name') return null;
  const v = target.name;
  const reads = new Map<string, Set<string> | null>();
  let whole = false;
  const walk = (node: Node, parent: Node | null, grandparent: Node | null, above: Node | null): void => {
    if (whole) return;
    if (node.type === 'Name' && node.name === v) {
      const attr = parent?.type === 'Getattr' && parent.node === node ? parent.attr : null;
      if (attr === null || isUnsafeName(attr) || hasBuiltinMethod({}, attr) || (grandparent?.type === 'Call' && grandparent.node === parent)) {
        whole = true;
        return;
      }
      const key = constantKeyRead(grandparent, parent!, above);
      const known = reads.get(attr);
      if (key === null || isUnsafeName(key)) reads.set(attr, null);
      else if (known === undefined) reads.set(attr, new Set([key]));
      else known?.add(key);
      return;
    }
    for (const child of childrenOf(node)) walk(child, node, parent, grandparent);
  };
  if (filter) walk(filter, null, null, null);
  for (const stmt of body) walk(stmt, null, null, null);
  return whole ? null : reads;
}
