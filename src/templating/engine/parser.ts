// Recursive-descent parser following Jinja2's grammar and precedence (parse_tuple, parse_condexpr, ... parse_unary
// with postfix and filter binding tighter than arithmetic), producing the AST in ast.ts.
import type { CallArgs, Expr, MacroSignature, Stmt, Target } from './ast.ts';
import { TemplateSyntaxError } from './errors.ts';
import type { Token } from './lexer.ts';
import { PyFloat } from './values.ts';

const DESCRIBE: Record<string, string> = {
  var_end: 'end of print statement',
  block_end: 'end of statement block',
  var_begin: 'begin of print statement',
  block_begin: 'begin of statement block',
  eof: 'end of template',
  data: 'template data / text',
};
function describe(t: Token): string {
  if (t.type in DESCRIBE) return DESCRIBE[t.type];
  return t.value;
}

const COMPARE_OPS = new Set(['==', '!=', '<', '<=', '>', '>=']);
const TEST_ARG_START = new Set(['name', 'string', 'int', 'float']);
const RESERVED = new Set(['true', 'false', 'none', 'True', 'False', 'None']);

export function parse(tokens: Token[], templateName?: string): Stmt[] {
  return new Parser(tokens, templateName).parseTemplate();
}

class Parser {
  private i = 0;
  /** Stack of end-tag lists for "Jinja was looking for..." messages. */
  private endTokenStack: string[][] = [];
  private tagStack: string[] = [];
  private loopDepth = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly templateName?: string,
  ) {}

  private get cur(): Token {
    return this.tokens[this.i];
  }
  private look(): Token {
    return this.tokens[Math.min(this.i + 1, this.tokens.length - 1)];
  }
  private next(): Token {
    const t = this.tokens[this.i];
    if (this.i < this.tokens.length - 1) this.i++;
    return t;
  }
  private fail(msg: string, tok: Token = this.cur): never {
    throw new TemplateSyntaxError(msg, tok.line, tok.col, this.templateName);
  }
  private isOp(v: string): boolean {
    return this.cur.type === 'op' && this.cur.value === v;
  }
  private isName(v: string): boolean {
    return this.cur.type === 'name' && this.cur.value === v;
  }
  private skipOp(v: string): boolean {
    if (this.isOp(v)) {
      this.next();
      return true;
    }
    return false;
  }
  private skipName(v: string): boolean {
    if (this.isName(v)) {
      this.next();
      return true;
    }
    return false;
  }
  private expectOp(v: string): Token {
    if (!this.isOp(v)) {
      if (this.cur.type === 'eof') this.failEof(`unexpected end of template, expected '${v}'.`);
      this.fail(`expected token '${v}', got '${describe(this.cur)}'`);
    }
    return this.next();
  }
  private expectType(type: Token['type']): Token {
    if (this.cur.type !== type) {
      if (this.cur.type === 'eof') this.failEof(`unexpected end of template, expected '${DESCRIBE[type] ?? type}'.`);
      this.fail(`expected token '${DESCRIBE[type] ?? type}', got '${describe(this.cur)}'`);
    }
    return this.next();
  }
  private expectName(v?: string): Token {
    if (this.cur.type !== 'name' || (v !== undefined && this.cur.value !== v)) {
      if (this.cur.type === 'eof') this.failEof(`unexpected end of template, expected '${v ?? 'name'}'.`);
      this.fail(`expected token '${v ?? 'name'}', got '${describe(this.cur)}'`);
    }
    return this.next();
  }

  private failEof(base: string): never {
    const expected = this.endTokenStack.flat();
    let msg = base;
    if (expected.length) {
      const names = expected.map((e) => `'${e}'`);
      msg += ` Jinja was looking for the following tags: ${names.join(' or ')}.`;
    }
    if (this.tagStack.length) msg += ` The innermost block that needs to be closed is '${this.tagStack[this.tagStack.length - 1]}'.`;
    this.fail(msg);
  }

  parseTemplate(): Stmt[] {
    const body = this.subparse(null);
    return body;
  }

  private subparse(endTokens: string[] | null): Stmt[] {
    const body: Stmt[] = [];
    if (endTokens) this.endTokenStack.push(endTokens);
    try {
      for (;;) {
        const t = this.cur;
        if (t.type === 'eof') {
          if (endTokens) this.failEof('Unexpected end of template.');
          break;
        }
        if (t.type === 'data') {
          this.next();
          body.push({ type: 'Data', line: t.line, text: t.value });
        } else if (t.type === 'var_begin') {
          this.next();
          const expr = this.parseTuple({ withCondexpr: true });
          this.expectType('var_end');
          body.push({ type: 'Print', line: t.line, expr });
        } else if (t.type === 'block_begin') {
          this.next();
          if (endTokens && this.cur.type === 'name' && endTokens.includes(this.cur.value)) return body;
          const stmt = this.parseStatement();
          body.push(...stmt);
          this.expectType('block_end');
        } else {
          this.fail(`unexpected '${describe(t)}'`);
        }
      }
    } finally {
      if (endTokens) this.endTokenStack.pop();
    }
    return body;
  }

  /** Parses body statements until one of endTokens; leaves the end name as current unless dropNeedle. */
  private parseStatements(endTokens: string[], dropNeedle = false): Stmt[] {
    this.skipOp(':');
    this.expectType('block_end');
    const body = this.subparse(endTokens);
    if (this.cur.type === 'eof') this.failEof('Unexpected end of template.');
    if (dropNeedle) this.next();
    return body;
  }

  private parseStatement(): Stmt[] {
    const t = this.cur;
    if (t.type !== 'name') this.fail('tag name expected');
    this.tagStack.push(t.value);
    let popTag = true;
    try {
      switch (t.value) {
        case 'for':
          return [this.parseFor()];
        case 'if':
          return [this.parseIf()];
        case 'set':
          return [this.parseSet()];
        case 'macro':
          return [this.parseMacro()];
        case 'call':
          return [this.parseCallBlock()];
        case 'filter':
          return [this.parseFilterBlock()];
        case 'with':
          return [this.parseWith()];
        case 'block':
          return [this.parseBlock()];
        case 'autoescape': {
          this.next();
          const value = this.parseExpression();
          const body = this.parseStatements(['endautoescape'], true);
          return [{ type: 'Autoescape', line: t.line, value, body }];
        }
        case 'print': {
          this.next();
          return [{ type: 'Print', line: t.line, expr: this.parseTuple({ withCondexpr: true }) }];
        }
        case 'break':
        case 'continue':
          this.next();
          if (this.loopDepth === 0) this.fail(`'${t.value}' outside of a loop`, t);
          return [{ type: t.value === 'break' ? 'Break' : 'Continue', line: t.line }];
        case 'include':
        case 'import':
        case 'from':
        case 'extends':
          return [this.parseUnavailable()];
        default: {
          popTag = false;
          this.tagStack.pop();
          let msg = `Encountered unknown tag '${t.value}'.`;
          if (this.endTokenStack.length) {
            const expected = this.endTokenStack.flat().map((e) => `'${e}'`);
            msg += ` Jinja was looking for the following tags: ${expected.join(' or ')}.`;
            if (this.tagStack.length)
              msg += ` The innermost block that needs to be closed is '${this.tagStack[this.tagStack.length - 1]}'.`;
          }
          return this.fail(msg, t);
        }
      }
    } finally {
      if (popTag) this.tagStack.pop();
    }
  }

  private parseUnavailable(): Stmt {
    const t = this.next();
    // Parse the operands so malformed tags still fail as syntax errors, then refuse at render time.
    if (t.value === 'from') {
      this.parseExpression();
      this.expectName('import');
      while (this.cur.type !== 'block_end' && this.cur.type !== 'eof') this.next();
    } else {
      this.parseExpression();
      while (this.cur.type !== 'block_end' && this.cur.type !== 'eof') this.next();
    }
    return { type: 'Unavailable', line: t.line, what: t.value };
  }

  private parseFor(): Stmt {
    const line = this.next().line;
    const target = this.parseAssignTarget({ extraEnd: ['in'] });
    this.expectName('in');
    const iter = this.parseTuple({ withCondexpr: false, extraEnd: ['recursive'] });
    let filter: Expr | null = null;
    if (this.skipName('if')) filter = this.parseExpression();
    const recursive = this.skipName('recursive');
    this.loopDepth++;
    const body = this.parseStatements(['endfor', 'else']);
    this.loopDepth--;
    let orelse: Stmt[] = [];
    if (this.next().value !== 'endfor') orelse = this.parseStatements(['endfor'], true);
    return { type: 'For', line, target, iter, body, orelse, filter, recursive };
  }

  private parseIf(): Stmt {
    const line = this.next().line;
    const test = this.parseTuple({ withCondexpr: false });
    const body = this.parseStatements(['elif', 'else', 'endif']);
    const tok = this.next();
    let orelse: Stmt[] = [];
    if (tok.value === 'elif') {
      this.tagStack.push('elif');
      // `elif` re-enters parseIf on the same token stream: pretend the current token is an `if`.
      this.i--;
      orelse = [this.parseIf()];
      this.tagStack.pop();
      return { type: 'If', line, test, body, orelse };
    }
    if (tok.value === 'else') orelse = this.parseStatements(['endif'], true);
    return { type: 'If', line, test, body, orelse };
  }

  private parseSet(): Stmt {
    const line = this.next().line;
    const target = this.parseAssignTarget({ withNamespace: true });
    if (this.skipOp('=')) {
      const expr = this.parseTuple({ withCondexpr: true });
      return { type: 'Set', line, target, expr };
    }
    const filter = this.isOp('|') ? this.parseFilter(null) : null;
    const body = this.parseStatements(['endset'], true);
    return { type: 'SetBlock', line, target, filter, body };
  }

  private parseWith(): Stmt {
    const line = this.next().line;
    const targets: Target[] = [];
    const values: Expr[] = [];
    while (this.cur.type !== 'block_end') {
      if (this.cur.type === 'eof') this.failEof('unexpected end of template.');
      if (targets.length) this.expectOp(',');
      targets.push(this.parseAssignTarget({}));
      this.expectOp('=');
      values.push(this.parseExpression());
    }
    const body = this.parseStatements(['endwith'], true);
    return { type: 'With', line, targets, values, body };
  }

  private parseBlock(): Stmt {
    const line = this.next().line;
    const name = this.expectName().value;
    this.skipName('scoped');
    this.skipName('required');
    if (this.isOp('-'))
      this.fail(
        'Block names in Jinja have to be valid Python identifiers and may not contain hyphens, use an underscore instead.',
      );
    const body = this.parseStatements(['endblock'], true);
    this.skipName(name);
    return { type: 'Block', line, name, body };
  }

  private parseSignature(): MacroSignature {
    const args: string[] = [];
    const defaults: Expr[] = [];
    this.expectOp('(');
    while (!this.isOp(')')) {
      if (args.length) this.expectOp(',');
      const tok = this.expectName();
      if (RESERVED.has(tok.value)) this.fail(`can't assign to '${tok.value}'`, tok);
      if (this.skipOp('=')) defaults.push(this.parseExpression());
      else if (defaults.length) this.fail('non-default argument follows default argument');
      args.push(tok.value);
    }
    this.expectOp(')');
    return { args, defaults };
  }

  private parseMacro(): Stmt {
    const line = this.next().line;
    const nameTok = this.expectName();
    const sig = this.parseSignature();
    const saved = this.loopDepth;
    this.loopDepth = 0;
    const body = this.parseStatements(['endmacro'], true);
    this.loopDepth = saved;
    return { type: 'Macro', line, name: nameTok.value, body, ...sig };
  }

  private parseCallBlock(): Stmt {
    const line = this.next().line;
    const sig: MacroSignature = this.isOp('(') ? this.parseSignature() : { args: [], defaults: [] };
    const call = this.parseExpression();
    if (call.type !== 'Call') this.fail('expected call', this.tokens[this.i - 1]);
    const saved = this.loopDepth;
    this.loopDepth = 0;
    const body = this.parseStatements(['endcall'], true);
    this.loopDepth = saved;
    return { type: 'CallBlock', line, call, body, ...sig };
  }

  private parseFilterBlock(): Stmt {
    const line = this.next().line;
    const filter = this.parseFilter(null, true);
    const body = this.parseStatements(['endfilter'], true);
    return { type: 'FilterBlock', line, filter, body };
  }

  // ------------------------------------------------------------ targets

  private parseAssignTarget(opts: { extraEnd?: string[]; withNamespace?: boolean; nameOnly?: boolean }): Target {
    if (opts.withNamespace) {
      const flat = this.parseFlatNamespaceTargets();
      if (flat) return flat;
    }
    const start = this.cur;
    const expr = this.parseTuple({ simplified: true, extraEnd: opts.extraEnd });
    return this.toTarget(expr, start);
  }

  /**
   * `ns.a`, or a flat tuple of names and namespace attributes (`ns.a, ns.b`, `x, ns.b`), as Jinja2 3.1 assigns;
   * null (nothing consumed) when the target has no namespace attribute or is not flat, for the general path.
   */
  private parseFlatNamespaceTargets(): Target | null {
    const start = this.i;
    const items: Target[] = [];
    let tuple = false;
    let namespaced = false;
    for (;;) {
      const t = this.cur;
      if (t.type !== 'name') break;
      if (this.look().type === 'op' && this.look().value === '.') {
        this.next();
        this.next();
        const attr = this.expectName();
        items.push({ type: 'NSRef', line: t.line, name: t.value, attr: attr.value });
        namespaced = true;
      } else {
        if (RESERVED.has(t.value)) break;
        this.next();
        items.push({ type: 'Name', line: t.line, name: t.value });
      }
      if (this.cur.type === 'op' && this.cur.value === ',') {
        this.next();
        tuple = true;
        continue;
      }
      const end = this.cur;
      if (namespaced && (end.type === 'block_end' || (end.type === 'op' && end.value === '='))) {
        return tuple ? { type: 'Tuple', line: items[0]!.line, items } : items[0]!;
      }
      break;
    }
    this.i = start;
    return null;
  }

  private toTarget(e: Expr, tok: Token): Target {
    if (e.type === 'Name') {
      if (RESERVED.has(e.name)) this.fail(`can't assign to '${e.name}'`, tok);
      return { type: 'Name', line: e.line, name: e.name };
    }
    if (e.type === 'Tuple') return { type: 'Tuple', line: e.line, items: e.items.map((x) => this.toTarget(x, tok)) };
    return this.fail(`can't assign to '${e.type.toLowerCase()}'`, tok);
  }

  // ------------------------------------------------------------ expressions

  private isTupleEnd(extraEnd?: string[]): boolean {
    const t = this.cur;
    if (t.type === 'var_end' || t.type === 'block_end' || (t.type === 'op' && t.value === ')')) return true;
    if (extraEnd && t.type === 'name' && extraEnd.includes(t.value)) return true;
    return false;
  }

  parseTuple(opts: { simplified?: boolean; withCondexpr?: boolean; extraEnd?: string[]; explicitParens?: boolean }): Expr {
    const line = this.cur.line;
    const items: Expr[] = [];
    let isTuple = false;
    for (;;) {
      if (items.length) this.expectOp(',');
      if (this.isTupleEnd(opts.extraEnd)) break;
      if (opts.simplified) items.push(this.parsePrimary());
      else items.push(this.parseExpression(opts.withCondexpr ?? true));
      if (this.isOp(',')) isTuple = true;
      else break;
    }
    if (!isTuple) {
      if (items.length) return items[0];
      if (!opts.explicitParens) {
        if (this.cur.type === 'eof') this.failEof('unexpected end of template.');
        this.fail(`Expected an expression, got '${describe(this.cur)}'`);
      }
    }
    return { type: 'Tuple', line, items };
  }

  parseExpression(withCondexpr = true): Expr {
    return withCondexpr ? this.parseCondexpr() : this.parseOr();
  }

  private parseCondexpr(): Expr {
    const line = this.cur.line;
    let expr1 = this.parseOr();
    while (this.skipName('if')) {
      const test = this.parseOr();
      const expr2 = this.skipName('else') ? this.parseCondexpr() : null;
      expr1 = { type: 'CondExpr', line, test, expr1, expr2 };
    }
    return expr1;
  }

  private parseOr(): Expr {
    let left = this.parseAnd();
    while (this.isName('or')) {
      const line = this.next().line;
      left = { type: 'Or', line, left, right: this.parseAnd() };
    }
    return left;
  }

  private parseAnd(): Expr {
    let left = this.parseNot();
    while (this.isName('and')) {
      const line = this.next().line;
      left = { type: 'And', line, left, right: this.parseNot() };
    }
    return left;
  }

  private parseNot(): Expr {
    if (this.isName('not')) {
      const line = this.next().line;
      return { type: 'Unary', line, op: 'not', operand: this.parseNot() };
    }
    return this.parseCompare();
  }

  private parseCompare(): Expr {
    const line = this.cur.line;
    const expr = this.parseMath1();
    const ops: [string, Expr][] = [];
    for (;;) {
      const t = this.cur;
      if (t.type === 'op' && COMPARE_OPS.has(t.value)) {
        this.next();
        ops.push([t.value, this.parseMath1()]);
      } else if (this.skipName('in')) {
        ops.push(['in', this.parseMath1()]);
      } else if (this.isName('not') && this.look().type === 'name' && this.look().value === 'in') {
        this.next();
        this.next();
        ops.push(['notin', this.parseMath1()]);
      } else break;
    }
    if (!ops.length) return expr;
    return { type: 'Compare', line, expr, ops };
  }

  private parseMath1(): Expr {
    let left = this.parseConcat();
    while (this.isOp('+') || this.isOp('-')) {
      const t = this.next();
      left = { type: 'BinOp', line: t.line, op: t.value, left, right: this.parseConcat() };
    }
    return left;
  }

  private parseConcat(): Expr {
    const line = this.cur.line;
    const items = [this.parseMath2()];
    while (this.skipOp('~')) items.push(this.parseMath2());
    return items.length === 1 ? items[0] : { type: 'Concat', line, items };
  }

  private parseMath2(): Expr {
    let left = this.parsePow();
    while (this.isOp('*') || this.isOp('/') || this.isOp('//') || this.isOp('%')) {
      const t = this.next();
      left = { type: 'BinOp', line: t.line, op: t.value, left, right: this.parsePow() };
    }
    return left;
  }

  private parsePow(): Expr {
    let left = this.parseUnary();
    while (this.isOp('**')) {
      const t = this.next();
      left = { type: 'BinOp', line: t.line, op: '**', left, right: this.parseUnary() };
    }
    return left;
  }

  private parseUnary(withFilter = true): Expr {
    const t = this.cur;
    let node: Expr;
    if (this.isOp('-')) {
      this.next();
      node = { type: 'Unary', line: t.line, op: 'neg', operand: this.parseUnary(false) };
    } else if (this.isOp('+')) {
      this.next();
      node = { type: 'Unary', line: t.line, op: 'pos', operand: this.parseUnary(false) };
    } else node = this.parsePrimary();
    node = this.parsePostfix(node);
    if (withFilter) node = this.parseFilterExpr(node);
    return node;
  }

  private parsePrimary(): Expr {
    const t = this.cur;
    switch (t.type) {
      case 'name': {
        this.next();
        if (t.value === 'true' || t.value === 'True') return { type: 'Const', line: t.line, value: true };
        if (t.value === 'false' || t.value === 'False') return { type: 'Const', line: t.line, value: false };
        if (t.value === 'none' || t.value === 'None') return { type: 'Const', line: t.line, value: null };
        return { type: 'Name', line: t.line, name: t.value };
      }
      case 'string': {
        let s = this.next().value;
        while (this.cur.type === 'string') s += this.next().value;
        return { type: 'Const', line: t.line, value: s };
      }
      case 'int':
        this.next();
        return { type: 'Const', line: t.line, value: t.num ?? 0 };
      case 'float': {
        this.next();
        const v = Number(t.num ?? 0);
        return { type: 'Const', line: t.line, value: Number.isInteger(v) ? new PyFloat(v) : v };
      }
      case 'op':
        if (t.value === '(') {
          this.next();
          const e = this.parseTuple({ explicitParens: true });
          this.expectOp(')');
          return e;
        }
        if (t.value === '[') return this.parseList();
        if (t.value === '{') return this.parseDict();
        break;
      case 'eof':
        this.failEof('unexpected end of template.');
    }
    return this.fail(`unexpected '${describe(t)}'`);
  }

  private parseList(): Expr {
    const line = this.expectOp('[').line;
    const items: Expr[] = [];
    while (!this.isOp(']')) {
      if (items.length) this.expectOp(',');
      if (this.isOp(']')) break;
      items.push(this.parseExpression());
    }
    this.expectOp(']');
    return { type: 'List', line, items };
  }

  private parseDict(): Expr {
    const line = this.expectOp('{').line;
    const pairs: [Expr, Expr][] = [];
    while (!this.isOp('}')) {
      if (pairs.length) this.expectOp(',');
      if (this.isOp('}')) break;
      const k = this.parseExpression();
      this.expectOp(':');
      pairs.push([k, this.parseExpression()]);
    }
    this.expectOp('}');
    return { type: 'Dict', line, pairs };
  }

  private parsePostfix(node: Expr): Expr {
    for (;;) {
      if (this.isOp('.') || this.isOp('[')) node = this.parseSubscript(node);
      else if (this.isOp('(')) node = { type: 'Call', line: this.cur.line, node, ...this.parseCallArgs() };
      else return node;
    }
  }

  private parseFilterExpr(node: Expr): Expr {
    for (;;) {
      if (this.isOp('|')) node = this.parseFilter(node);
      else if (this.isName('is')) node = this.parseTest(node);
      else if (this.isOp('(')) node = { type: 'Call', line: this.cur.line, node, ...this.parseCallArgs() };
      else return node;
    }
  }

  private parseSubscript(node: Expr): Expr {
    const t = this.next();
    if (t.value === '.') {
      const a = this.next();
      if (a.type === 'name') return { type: 'Getattr', line: t.line, node, attr: a.value };
      if (a.type !== 'int') this.fail('expected name or number', a);
      return { type: 'Getitem', line: t.line, node, arg: { type: 'Const', line: a.line, value: a.num ?? 0 } };
    }
    const args: Expr[] = [];
    while (!this.isOp(']')) {
      if (args.length) this.expectOp(',');
      args.push(this.parseSubscribed());
    }
    this.expectOp(']');
    const arg: Expr = args.length === 1 ? args[0] : { type: 'Tuple', line: t.line, items: args };
    return { type: 'Getitem', line: t.line, node, arg };
  }

  private parseSubscribed(): Expr {
    const line = this.cur.line;
    const parts: (Expr | null)[] = [];
    if (this.isOp(':')) {
      this.next();
      parts.push(null);
    } else {
      const e = this.parseExpression();
      if (!this.isOp(':')) return e;
      this.next();
      parts.push(e);
    }
    if (this.isOp(':')) parts.push(null);
    else if (!this.isOp(']') && !this.isOp(',')) parts.push(this.parseExpression());
    else parts.push(null);
    if (this.isOp(':')) {
      this.next();
      if (!this.isOp(']') && !this.isOp(',')) parts.push(this.parseExpression());
      else parts.push(null);
    } else parts.push(null);
    return { type: 'Slice', line, start: parts[0], stop: parts[1], step: parts[2] };
  }

  private parseCallArgs(): CallArgs {
    const open = this.expectOp('(');
    const out: CallArgs = { args: [], kwargs: [], dynArgs: null, dynKwargs: null };
    const ensure = (ok: boolean): void => {
      if (!ok) this.fail('invalid syntax for function call expression', open);
    };
    let requireComma = false;
    while (!this.isOp(')')) {
      if (requireComma) {
        this.expectOp(',');
        if (this.isOp(')')) break;
      }
      if (this.isOp('*')) {
        ensure(out.dynArgs === null && out.dynKwargs === null);
        this.next();
        out.dynArgs = this.parseExpression();
      } else if (this.isOp('**')) {
        ensure(out.dynKwargs === null);
        this.next();
        out.dynKwargs = this.parseExpression();
      } else if (this.cur.type === 'name' && this.look().type === 'op' && this.look().value === '=') {
        ensure(out.dynKwargs === null);
        const key = this.next().value;
        this.next();
        out.kwargs.push([key, this.parseExpression()]);
      } else {
        ensure(out.dynArgs === null && out.dynKwargs === null && out.kwargs.length === 0);
        out.args.push(this.parseExpression());
      }
      requireComma = true;
    }
    this.expectOp(')');
    return out;
  }

  private parseDottedName(): string {
    let name = this.expectName().value;
    while (this.isOp('.')) {
      this.next();
      name += '.' + this.expectName().value;
    }
    return name;
  }

  parseFilter(node: Expr | null, startInline = false): Expr {
    let result = node;
    while (this.isOp('|') || startInline) {
      const line = this.cur.line;
      if (!startInline) this.next();
      startInline = false;
      const name = this.parseDottedName();
      const args: CallArgs = this.isOp('(') ? this.parseCallArgs() : { args: [], kwargs: [], dynArgs: null, dynKwargs: null };
      result = { type: 'Filter', line, node: result, name, ...args };
    }
    if (result === null) return this.fail('expected filter');
    return result;
  }

  private parseTest(node: Expr): Expr {
    const line = this.next().line;
    const negated = this.skipName('not');
    const name = this.parseDottedName();
    let args: CallArgs = { args: [], kwargs: [], dynArgs: null, dynKwargs: null };
    const c = this.cur;
    if (this.isOp('(')) args = this.parseCallArgs();
    else if (
      (TEST_ARG_START.has(c.type) || (c.type === 'op' && (c.value === '(' || c.value === '[' || c.value === '{'))) &&
      !(c.type === 'name' && (c.value === 'else' || c.value === 'or' || c.value === 'and'))
    ) {
      if (c.type === 'name' && c.value === 'is') this.fail('You cannot chain multiple tests with is');
      const arg = this.parsePostfix(this.parsePrimary());
      args = { args: [arg], kwargs: [], dynArgs: null, dynKwargs: null };
    }
    const test: Expr = { type: 'Test', line, node, name, ...args };
    return negated ? { type: 'Unary', line, op: 'not', operand: test } : test;
  }
}
