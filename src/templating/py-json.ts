// JSON read as Python's json.load reads it, for template contexts given as files (`cairn template render --data`):
// a number written with a fraction or an exponent is a float even when its value is integral (`3.0` prints "3.0",
// as in Jinja2), and an integer too large for a double stays exact (a bigint). JSON.parse cannot tell `3.0` from
// `3` (Node 20 gives a reviver no source text), so this is a small reader of its own; everything else is what
// JSON.parse gives (objects with their own keys, `__proto__` included as a plain key).
import { PyFloat } from './engine/index.ts';

export class JsonSyntaxError extends Error {}

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const SPACE = /[ \t\n\r]*/y;

export function parsePythonJson(text: string): unknown {
  let at = 0;
  const fail = (what: string): never => {
    const line = text.slice(0, at).split('\n').length;
    throw new JsonSyntaxError(`${what} at line ${line}, column ${at - text.lastIndexOf('\n', at - 1)}`);
  };
  const skip = () => {
    SPACE.lastIndex = at;
    SPACE.exec(text);
    at = SPACE.lastIndex;
  };
  const match = (re: RegExp): RegExpExecArray | null => {
    re.lastIndex = at;
    const m = re.exec(text);
    if (m) at = re.lastIndex;
    return m;
  };
  const value = (depth: number): unknown => {
    if (depth > 1000) fail('Nesting too deep');
    skip();
    const c = text[at];
    if (c === '{') {
      at++;
      const out: Record<string, unknown> = {};
      skip();
      if (text[at] === '}') return at++, out;
      for (;;) {
        skip();
        const key = match(STRING) ?? fail('Expected a property name');
        skip();
        if (text[at++] !== ':') fail("Expected ':'");
        // defineProperty: a key named __proto__ is a key, as JSON.parse makes it.
        Object.defineProperty(out, JSON.parse(key[0]) as string, { value: value(depth + 1), enumerable: true, writable: true, configurable: true });
        skip();
        const next = text[at++];
        if (next === '}') return out;
        if (next !== ',') fail("Expected ',' or '}'");
      }
    }
    if (c === '[') {
      at++;
      const out: unknown[] = [];
      skip();
      if (text[at] === ']') return at++, out;
      for (;;) {
        out.push(value(depth + 1));
        skip();
        const next = text[at++];
        if (next === ']') return out;
        if (next !== ',') fail("Expected ',' or ']'");
      }
    }
    if (c === '"') return JSON.parse((match(STRING) ?? fail('Bad string'))[0]) as string;
    for (const [word, v] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, at)) return (at += word.length), v;
    }
    const m = match(NUMBER) ?? fail('Unexpected token');
    const n = Number(m[0]);
    if (m[1] !== undefined || m[2] !== undefined) return Number.isInteger(n) ? new PyFloat(n) : n;
    return Number.isSafeInteger(n) ? n : BigInt(m[0]);
  };
  const result = value(0);
  skip();
  if (at < text.length) fail('Unexpected text after the JSON value');
  return result;
}
