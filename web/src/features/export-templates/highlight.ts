// A small Jinja2 tokenizer for the editor's highlighting: text, the three tag kinds, and inside tags strings,
// numbers, keywords, operators and names. It only colours; the server's compile on save is the real check, so
// an unbalanced tag here just colours the rest of the text as part of the tag.

export type TokenKind = 'text' | 'delim' | 'comment' | 'string' | 'number' | 'keyword' | 'operator' | 'name';

export interface Token {
  kind: TokenKind;
  text: string;
}

const KEYWORDS = new Set([
  'if', 'elif', 'else', 'endif', 'for', 'endfor', 'in', 'not', 'and', 'or', 'is', 'set', 'endset', 'macro', 'endmacro',
  'call', 'endcall', 'filter', 'endfilter', 'block', 'endblock', 'extends', 'include', 'import', 'from', 'as', 'with',
  'endwith', 'raw', 'endraw', 'true', 'false', 'none', 'True', 'False', 'None', 'loop', 'recursive',
]);

const INNER = /("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?)|(\d+(?:\.\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|(\s+)|([^\sA-Za-z0-9_"']+)/g;

function tokenizeInner(source: string, out: Token[]): void {
  INNER.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = INNER.exec(source))) {
    if (m[1] !== undefined) out.push({ kind: 'string', text: m[1] });
    else if (m[2] !== undefined) out.push({ kind: 'number', text: m[2] });
    else if (m[3] !== undefined) out.push({ kind: KEYWORDS.has(m[3]) ? 'keyword' : 'name', text: m[3] });
    else if (m[4] !== undefined) out.push({ kind: 'text', text: m[4] });
    else out.push({ kind: 'operator', text: m[5]! });
  }
}

/** Splits template source into coloured tokens; joining every token's text gives the source back unchanged. */
export function tokenize(source: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const open = source.slice(i).search(/\{[{%#]/);
    if (open < 0) {
      out.push({ kind: 'text', text: source.slice(i) });
      break;
    }
    if (open > 0) out.push({ kind: 'text', text: source.slice(i, i + open) });
    const start = i + open;
    const kind = source[start + 1];
    const close = kind === '{' ? '}}' : kind === '%' ? '%}' : '#}';
    const endAt = source.indexOf(close, start + 2);
    const end = endAt < 0 ? source.length : endAt + 2;
    if (kind === '#') {
      out.push({ kind: 'comment', text: source.slice(start, end) });
    } else {
      // Whitespace-control markers (`{%-`, `-%}`) belong to the delimiters.
      let innerStart = start + 2;
      if (source[innerStart] === '-' || source[innerStart] === '+') innerStart++;
      let innerEnd = endAt < 0 ? end : endAt;
      if (endAt >= 0 && innerEnd > innerStart && (source[innerEnd - 1] === '-' || source[innerEnd - 1] === '+')) innerEnd--;
      out.push({ kind: 'delim', text: source.slice(start, innerStart) });
      tokenizeInner(source.slice(innerStart, innerEnd), out);
      if (innerEnd < end) out.push({ kind: 'delim', text: source.slice(innerEnd, end) });
    }
    i = end;
  }
  return out;
}

/** `line N: message` (the server's form for template errors) → N, or null when the message names no line. */
export function errorLine(message: string): number | null {
  const m = /^line (\d+):/.exec(message);
  return m ? Number(m[1]) : null;
}
