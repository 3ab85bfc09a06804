// Splits a template source into tokens with Jinja2's delimiter and whitespace rules:
// `{%-`/`-%}` strip all whitespace on that side, lstrip_blocks removes indentation before a block or comment tag
// (unless `{%+`), trim_blocks removes the newline after one (unless `+%}`), keep_trailing_newline keeps the source's
// final newline. Newlines are normalized to "\n" up front, as Jinja2 does for data and string literals.
import { TemplateSyntaxError } from './errors.ts';

export type TokenType =
  | 'data'
  | 'var_begin'
  | 'var_end'
  | 'block_begin'
  | 'block_end'
  | 'name'
  | 'int'
  | 'float'
  | 'string'
  | 'op'
  | 'eof';

export interface Token {
  type: TokenType;
  value: string;
  /** For int/float tokens, the parsed value (a bigint for an int literal beyond the safe range); for strings,
   *  the decoded text is in `value`. */
  num?: number | bigint;
  line: number;
  col: number;
}

export interface LexOptions {
  trimBlocks: boolean;
  lstripBlocks: boolean;
  keepTrailingNewline: boolean;
}

const OPERATORS3 = new Set(['//', '**', '==', '!=', '<=', '>=']);
const OPERATORS1 = new Set('+-/*%~[](){}<>=.:|,;'.split(''));
const CLOSERS: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
const FLOAT_RE = /(?:\d+_)*\d+(?:(?:\.(?:\d+_)*\d+)?[eE][+-]?(?:\d+_)*\d+|\.(?:\d+_)*\d+)/y;
const INT_RE = /0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0[xX](?:_?[\da-fA-F])+|[1-9](?:_?\d)*|0(?:_?0)*/y;
// Python's identifiers (str.isidentifier, which Jinja2 checks): XID_Start or _, then XID_Continue, so ℮, ℘ and a· are
// names as in Jinja2, and x² is not.
const NAME_RE = /[\p{XID_Start}_][\p{XID_Continue}]*/uy;
const WS_RE = /[ \t\n\r\f\v]+/y;
const RAW_BEGIN_RE = /\{%([-+]?)\s*raw\s*(-?)%\}/y;
const RAW_END_RE = /\{%(-?)\s*endraw\s*([-+]?)%\}/g;
const ONLY_SPACE = /^\s*$/;

export function tokenize(source: string, options: LexOptions, templateName?: string): Token[] {
  let src = source.replace(/\r\n?/g, '\n');
  if (!options.keepTrailingNewline && src.endsWith('\n')) src = src.slice(0, -1);
  const lineStarts = [0];
  for (let i = 0; i < src.length; i++) if (src.charCodeAt(i) === 10) lineStarts.push(i + 1);
  const where = (pos: number): [number, number] => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return [lo + 1, pos - lineStarts[lo] + 1];
  };
  const fail = (msg: string, pos: number): never => {
    const [line, col] = where(pos);
    throw new TemplateSyntaxError(msg, line, col, templateName);
  };
  const tokens: Token[] = [];
  const push = (type: TokenType, value: string, pos: number, num?: number | bigint): void => {
    const [line, col] = where(pos);
    tokens.push({ type, value, line, col, num });
  };

  let pos = 0;
  let stripNext = false; // previous tag ended with "-%}": strip leading whitespace of the next data
  let lineStarting = true; // previous tag ended at the start of a line (for lstrip_blocks)
  const n = src.length;

  const afterTagEnd = (end: number, strip: boolean, keepNewline: boolean, trimmable: boolean): number => {
    // Returns the position after the tag, applying trim_blocks; sets stripNext/lineStarting.
    stripNext = strip;
    lineStarting = false;
    if (!strip && trimmable && options.trimBlocks && !keepNewline && src.charCodeAt(end) === 10) {
      lineStarting = true;
      return end + 1;
    }
    return end;
  };

  while (pos < n) {
    let idx = src.indexOf('{', pos);
    while (idx !== -1) {
      const c = src[idx + 1];
      if (c === '{' || c === '%' || c === '#') break;
      idx = src.indexOf('{', idx + 1);
    }
    let text = src.slice(pos, idx === -1 ? n : idx);
    const textPos = pos;
    if (stripNext) {
      const before = text.length;
      text = text.replace(/^\s+/, '');
      if (before !== text.length) lineStarting = false;
    }
    if (idx === -1) {
      if (text) push('data', text, textPos);
      break;
    }
    const kind = src[idx + 1];
    const mod = src[idx + 2] === '-' || src[idx + 2] === '+' ? src[idx + 2] : '';
    if (mod === '-') text = text.trimEnd();
    else if (options.lstripBlocks && kind !== '{' && mod !== '+') {
      const lpos = text.lastIndexOf('\n') + 1;
      if ((lpos > 0 || lineStarting) && ONLY_SPACE.test(text.slice(lpos))) text = text.slice(0, lpos);
    }
    if (text) push('data', text, textPos);

    if (kind === '#') {
      const end = src.indexOf('#}', idx + 2);
      if (end === -1) fail('Missing end of comment tag', idx);
      const strip = src[end - 1] === '-' && end - 1 >= idx + 2;
      // "+#}" keeps the newline after the comment, as "+%}" does after a block (trim_blocks off for this one).
      const keep = src[end - 1] === '+' && end - 1 >= idx + 2;
      pos = afterTagEnd(end + 2, strip, keep, true);
      continue;
    }
    if (kind === '%') {
      RAW_BEGIN_RE.lastIndex = idx;
      const raw = RAW_BEGIN_RE.exec(src);
      if (raw) {
        RAW_END_RE.lastIndex = RAW_BEGIN_RE.lastIndex;
        const endm = RAW_END_RE.exec(src);
        if (!endm) fail('Missing end of raw directive', idx);
        const e = endm as RegExpExecArray;
        let content = src.slice(RAW_BEGIN_RE.lastIndex, e.index);
        if (raw[2] === '-') content = content.replace(/^\s+/, '');
        if (e[1] === '-') content = content.trimEnd();
        else if (options.lstripBlocks) {
          // lstrip_blocks applies to the endraw tag too: indentation before it on its own line goes
          const lpos = content.lastIndexOf('\n') + 1;
          if (lpos > 0 && ONLY_SPACE.test(content.slice(lpos))) content = content.slice(0, lpos);
        }
        if (content) push('data', content, RAW_BEGIN_RE.lastIndex);
        pos = afterTagEnd(e.index + e[0].length, e[2] === '-', e[2] === '+', true);
        continue;
      }
    }
    const isBlock = kind === '%';
    push(isBlock ? 'block_begin' : 'var_begin', isBlock ? '{%' : '{{', idx);
    pos = idx + 2 + (mod ? 1 : 0);
    const stack: string[] = [];
    for (;;) {
      WS_RE.lastIndex = pos;
      if (WS_RE.test(src)) pos = WS_RE.lastIndex;
      if (pos >= n) fail(`unexpected end of template, expected '${isBlock ? 'end of statement block' : 'end of print statement'}'`, pos);
      const ch = src[pos];
      if (stack.length === 0) {
        if (isBlock) {
          if ((ch === '-' || ch === '+') && src.startsWith('%}', pos + 1)) {
            push('block_end', '%}', pos);
            pos = afterTagEnd(pos + 3, ch === '-', ch === '+', true);
            break;
          }
          if (ch === '%' && src[pos + 1] === '}') {
            push('block_end', '%}', pos);
            pos = afterTagEnd(pos + 2, false, false, true);
            break;
          }
        } else {
          if (ch === '-' && src.startsWith('}}', pos + 1)) {
            push('var_end', '}}', pos);
            pos = afterTagEnd(pos + 3, true, false, false);
            break;
          }
          if (ch === '}' && src[pos + 1] === '}') {
            push('var_end', '}}', pos);
            pos = afterTagEnd(pos + 2, false, false, false);
            break;
          }
        }
      }
      // names
      NAME_RE.lastIndex = pos;
      const nm = NAME_RE.exec(src);
      if (nm) {
        push('name', nm[0], pos);
        pos = NAME_RE.lastIndex;
        continue;
      }
      if (ch >= '0' && ch <= '9') {
        FLOAT_RE.lastIndex = pos;
        const fm = FLOAT_RE.exec(src);
        if (fm && src[pos - 1] !== '.') {
          push('float', fm[0], pos, Number(fm[0].replace(/_/g, '')));
          pos = FLOAT_RE.lastIndex;
          continue;
        }
        INT_RE.lastIndex = pos;
        const im = INT_RE.exec(src);
        if (im) {
          const t = im[0].replace(/_/g, '').toLowerCase();
          let v: number | bigint;
          if (t.startsWith('0b')) v = parseInt(t.slice(2), 2);
          else if (t.startsWith('0o')) v = parseInt(t.slice(2), 8);
          else if (t.startsWith('0x')) v = parseInt(t.slice(2), 16);
          else v = Number(t);
          // Python ints are exact: beyond the safe range the literal is a bigint (BigInt reads 0b/0o/0x too).
          if (!Number.isSafeInteger(v)) v = BigInt(t);
          push('int', im[0], pos, v);
          pos = INT_RE.lastIndex;
          continue;
        }
      }
      if (ch === '"' || ch === "'") {
        let j = pos + 1;
        while (j < n && src[j] !== ch) j += src[j] === '\\' ? 2 : 1;
        if (j >= n) fail('unexpected end of string', pos);
        push('string', decodeString(src.slice(pos + 1, j)), pos);
        pos = j + 1;
        continue;
      }
      const two = src.slice(pos, pos + 2);
      if (OPERATORS3.has(two)) {
        push('op', two, pos);
        pos += 2;
        continue;
      }
      if (OPERATORS1.has(ch)) {
        if (ch === '(' || ch === '[' || ch === '{') stack.push(ch);
        else if (ch in CLOSERS) {
          if (stack.length === 0) fail(`unexpected '${ch}'`, pos);
          const open = stack.pop();
          if (open !== CLOSERS[ch]) fail(`unexpected '${ch}', expected '${{ '(': ')', '[': ']', '{': '}' }[open ?? '(']}'`, pos);
        }
        push('op', ch, pos);
        pos += 1;
        continue;
      }
      fail(`unexpected char ${JSON.stringify(ch)} at ${pos}`, pos);
    }
  }
  push('eof', '', n);
  return tokens;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\n': '',
};

/** Decodes a string literal body like Python's unicode-escape, leaving unknown escapes as written. */
function decodeString(body: string): string {
  if (!body.includes('\\')) return body;
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\' || i + 1 >= body.length) {
      out += c;
      continue;
    }
    const e = body[i + 1];
    if (e in SIMPLE_ESCAPES) {
      out += SIMPLE_ESCAPES[e];
      i++;
      continue;
    }
    const hexLen = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
    if (hexLen) {
      const hex = body.slice(i + 2, i + 2 + hexLen);
      if (hex.length === hexLen && /^[0-9a-fA-F]+$/.test(hex)) {
        const cp = parseInt(hex, 16);
        out += cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
        i += 1 + hexLen;
        continue;
      }
      out += c;
      continue;
    }
    if (e >= '0' && e <= '7') {
      const m = /^[0-7]{1,3}/.exec(body.slice(i + 1));
      const oct = m ? m[0] : e;
      out += String.fromCodePoint(parseInt(oct, 8));
      i += oct.length;
      continue;
    }
    out += c;
  }
  return out;
}
