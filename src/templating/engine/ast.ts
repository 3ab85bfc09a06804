// AST of a template. Every node carries the 1-based line it starts on, so runtime errors can name it.
import type { PyFloat } from './values.ts';

export type ConstValue = string | number | bigint | PyFloat | boolean | null;

export interface CallArgs {
  args: Expr[];
  kwargs: [string, Expr][];
  dynArgs: Expr | null;
  dynKwargs: Expr | null;
}

export type Expr =
  | { type: 'Const'; line: number; value: ConstValue }
  | { type: 'Name'; line: number; name: string }
  | { type: 'List'; line: number; items: Expr[] }
  | { type: 'Tuple'; line: number; items: Expr[] }
  | { type: 'Dict'; line: number; pairs: [Expr, Expr][] }
  | { type: 'BinOp'; line: number; op: string; left: Expr; right: Expr }
  | { type: 'Concat'; line: number; items: Expr[] }
  | { type: 'Unary'; line: number; op: 'neg' | 'pos' | 'not'; operand: Expr }
  | { type: 'Compare'; line: number; expr: Expr; ops: [string, Expr][] }
  | { type: 'And' | 'Or'; line: number; left: Expr; right: Expr }
  | { type: 'CondExpr'; line: number; test: Expr; expr1: Expr; expr2: Expr | null }
  | { type: 'Getattr'; line: number; node: Expr; attr: string }
  | { type: 'Getitem'; line: number; node: Expr; arg: Expr }
  | { type: 'Slice'; line: number; start: Expr | null; stop: Expr | null; step: Expr | null }
  | ({ type: 'Call'; line: number; node: Expr } & CallArgs)
  | ({ type: 'Filter'; line: number; node: Expr | null; name: string } & CallArgs)
  | ({ type: 'Test'; line: number; node: Expr; name: string } & CallArgs);

export type Target =
  | { type: 'Name'; line: number; name: string }
  | { type: 'Tuple'; line: number; items: Target[] }
  | { type: 'NSRef'; line: number; name: string; attr: string };

export interface MacroSignature {
  args: string[];
  defaults: Expr[]; // aligned to the last args
}

export type Stmt =
  | { type: 'Data'; line: number; text: string }
  | { type: 'Print'; line: number; expr: Expr }
  | { type: 'If'; line: number; test: Expr; body: Stmt[]; orelse: Stmt[] }
  | {
      type: 'For';
      line: number;
      target: Target;
      iter: Expr;
      body: Stmt[];
      orelse: Stmt[];
      filter: Expr | null;
      recursive: boolean;
    }
  | { type: 'Set'; line: number; target: Target; expr: Expr }
  | { type: 'SetBlock'; line: number; target: Target; filter: Expr | null; body: Stmt[] }
  | ({ type: 'Macro'; line: number; name: string; body: Stmt[] } & MacroSignature)
  | ({ type: 'CallBlock'; line: number; call: Expr; body: Stmt[] } & MacroSignature)
  | { type: 'FilterBlock'; line: number; filter: Expr; body: Stmt[] }
  | { type: 'With'; line: number; targets: Target[]; values: Expr[]; body: Stmt[] }
  | { type: 'Block'; line: number; name: string; body: Stmt[] }
  | { type: 'Autoescape'; line: number; value: Expr; body: Stmt[] }
  | { type: 'Break' | 'Continue'; line: number }
  | { type: 'Do'; line: number; expr: Expr }
  | { type: 'Unavailable'; line: number; what: string };
