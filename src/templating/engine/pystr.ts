// Python str semantics that differ from JavaScript's: whitespace splitting, strip sets, title case, centering,
// code-point indexing.

const PY_WS = ' \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000';
export function isPyWhitespace(ch: string): boolean {
  return PY_WS.includes(ch);
}

export function pyStrip(s: string, chars: string | null, left: boolean, right: boolean): string {
  const set = chars ?? PY_WS;
  let a = 0;
  let b = s.length;
  if (left) while (a < b && set.includes(s[a])) a++;
  if (right) while (b > a && set.includes(s[b - 1])) b--;
  return s.slice(a, b);
}

export function pySplit(s: string, sep: string | null, maxsplit: number): string[] {
  if (sep === null) {
    const out: string[] = [];
    let i = 0;
    const n = s.length;
    while (i < n) {
      while (i < n && isPyWhitespace(s[i])) i++;
      if (i >= n) break;
      if (maxsplit >= 0 && out.length >= maxsplit) {
        out.push(s.slice(i));
        break;
      }
      let j = i;
      while (j < n && !isPyWhitespace(s[j])) j++;
      out.push(s.slice(i, j));
      i = j;
    }
    return out;
  }
  if (maxsplit < 0) return s.split(sep);
  const out: string[] = [];
  let start = 0;
  while (out.length < maxsplit) {
    const k = s.indexOf(sep, start);
    if (k === -1) break;
    out.push(s.slice(start, k));
    start = k + sep.length;
  }
  out.push(s.slice(start));
  return out;
}

export function pyRsplit(s: string, sep: string | null, maxsplit: number): string[] {
  if (maxsplit < 0) return pySplit(s, sep, maxsplit);
  if (sep === null) {
    const out: string[] = [];
    let j = s.length;
    while (j > 0) {
      while (j > 0 && isPyWhitespace(s[j - 1])) j--;
      if (j <= 0) break;
      if (out.length >= maxsplit) {
        out.push(s.slice(0, j));
        break;
      }
      let i = j;
      while (i > 0 && !isPyWhitespace(s[i - 1])) i--;
      out.push(s.slice(i, j));
      j = i;
    }
    return out.reverse();
  }
  const out: string[] = [];
  let end = s.length;
  while (out.length < maxsplit) {
    const k = s.lastIndexOf(sep, end - sep.length);
    if (k === -1 || end - sep.length < 0) break;
    out.push(s.slice(k + sep.length, end));
    end = k;
  }
  out.push(s.slice(0, end));
  return out.reverse();
}

const LINE_BREAK = /\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]/g;
export function pySplitlines(s: string, keepends: boolean): string[] {
  const out: string[] = [];
  let last = 0;
  for (const m of s.matchAll(LINE_BREAK)) {
    const end = (m.index ?? 0) + m[0].length;
    out.push(s.slice(last, keepends ? end : m.index));
    last = end;
  }
  if (last < s.length) out.push(s.slice(last));
  return out;
}

// Python's str.title()/capitalize() use a character's *titlecase*, which differs from its uppercase for 135
// characters (ß -> Ss, dž -> Dž, ᾳ -> ᾼ, Georgian Mkhedruli stays as is...). JS has no toTitleCase, so this table,
// generated from Python 3 (`c.title() != c.upper()`), lists them as "codepoint:titlecase codepoints".
const TITLE_CASE_DATA =
  'df:53.73 1c4:1c5 1c5:1c5 1c6:1c5 1c7:1c8 1c8:1c8 1c9:1c8 1ca:1cb 1cb:1cb 1cc:1cb 1f1:1f2 1f2:1f2 1f3:1f2 587:535.582 10d0:10d0 10d1:10d1 10d2:10d2 10d3:10d3 10d4:10d4 10d5:10d5 10d6:10d6 10d7:10d7 10d8:10d8 10d9:10d9 10da:10da 10db:10db 10dc:10dc 10dd:10dd 10de:10de 10df:10df 10e0:10e0 10e1:10e1 10e2:10e2 10e3:10e3 10e4:10e4 10e5:10e5 10e6:10e6 10e7:10e7 10e8:10e8 10e9:10e9 10ea:10ea 10eb:10eb 10ec:10ec 10ed:10ed 10ee:10ee 10ef:10ef 10f0:10f0 10f1:10f1 10f2:10f2 10f3:10f3 10f4:10f4 10f5:10f5 10f6:10f6 10f7:10f7 10f8:10f8 10f9:10f9 10fa:10fa 10fd:10fd 10fe:10fe 10ff:10ff 1f80:1f88 1f81:1f89 1f82:1f8a 1f83:1f8b 1f84:1f8c 1f85:1f8d 1f86:1f8e 1f87:1f8f 1f88:1f88 1f89:1f89 1f8a:1f8a 1f8b:1f8b 1f8c:1f8c 1f8d:1f8d 1f8e:1f8e 1f8f:1f8f 1f90:1f98 1f91:1f99 1f92:1f9a 1f93:1f9b 1f94:1f9c 1f95:1f9d 1f96:1f9e 1f97:1f9f 1f98:1f98 1f99:1f99 1f9a:1f9a 1f9b:1f9b 1f9c:1f9c 1f9d:1f9d 1f9e:1f9e 1f9f:1f9f 1fa0:1fa8 1fa1:1fa9 1fa2:1faa 1fa3:1fab 1fa4:1fac 1fa5:1fad 1fa6:1fae 1fa7:1faf 1fa8:1fa8 1fa9:1fa9 1faa:1faa 1fab:1fab 1fac:1fac 1fad:1fad 1fae:1fae 1faf:1faf 1fb2:1fba.345 1fb3:1fbc 1fb4:386.345 1fb7:391.342.345 1fbc:1fbc 1fc2:1fca.345 1fc3:1fcc 1fc4:389.345 1fc7:397.342.345 1fcc:1fcc 1ff2:1ffa.345 1ff3:1ffc 1ff4:38f.345 1ff7:3a9.342.345 1ffc:1ffc fb00:46.66 fb01:46.69 fb02:46.6c fb03:46.66.69 fb04:46.66.6c fb05:53.74 fb06:53.74 fb13:544.576 fb14:544.565 fb15:544.56b fb16:54e.576 fb17:544.56d';
let titleCase: Map<string, string> | null = null;
/** Python's titlecase of one character (a code point string). */
export function titleChar(ch: string): string {
  if (titleCase === null) {
    titleCase = new Map();
    for (const pair of TITLE_CASE_DATA.split(' ')) {
      const [from, to] = pair.split(':');
      titleCase.set(String.fromCodePoint(parseInt(from, 16)), String.fromCodePoint(...to.split('.').map((h) => parseInt(h, 16))));
    }
  }
  return titleCase.get(ch) ?? ch.toUpperCase();
}

export function pyTitle(s: string): string {
  let out = '';
  let prevCased = false;
  for (const ch of s) {
    const lower = ch.toLowerCase();
    const upper = ch.toUpperCase();
    const cased = lower !== upper;
    if (cased) out += prevCased ? lower : titleChar(ch);
    else out += ch;
    prevCased = cased;
  }
  return out;
}

export function pyCapitalize(s: string): string {
  if (!s) return s;
  const first = String.fromCodePoint(s.codePointAt(0) ?? 0);
  return titleChar(first) + s.slice(first.length).toLowerCase();
}

export function pyCenter(s: string, width: number, fill: string): string {
  const len = cpLength(s);
  if (width <= len) return s;
  const marg = width - len;
  const left = Math.floor(marg / 2) + (marg & width & 1);
  return fill.repeat(left) + s + fill.repeat(marg - left);
}

export function pyZfill(s: string, width: number): string {
  const len = cpLength(s);
  if (width <= len) return s;
  const sign = s[0] === '+' || s[0] === '-' ? s[0] : '';
  return sign + '0'.repeat(width - len) + s.slice(sign.length);
}

export function pyCount(s: string, sub: string): number {
  if (sub === '') return cpLength(s) + 1;
  let n = 0;
  let i = s.indexOf(sub);
  while (i !== -1) {
    n++;
    i = s.indexOf(sub, i + sub.length);
  }
  return n;
}

export function pyReplace(s: string, old: string, rep: string, count: number): string {
  if (count < 0) {
    if (old === '') return rep + Array.from(s).join(rep) + (s ? rep : '');
    return s.split(old).join(rep);
  }
  let out = '';
  let rest = s;
  let n = 0;
  if (old === '') {
    const cps = Array.from(s);
    let i = 0;
    for (; i < cps.length && n < count; i++, n++) out += rep + cps[i];
    if (i === cps.length && n < count) out += rep;
    return out + cps.slice(i).join('');
  }
  while (n < count) {
    const k = rest.indexOf(old);
    if (k === -1) break;
    out += rest.slice(0, k) + rep;
    rest = rest.slice(k + old.length);
    n++;
  }
  return out + rest;
}

const SURROGATE = /[\uD800-\uDFFF]/;
/** Length in code points, like Python's len(str). */
export function cpLength(s: string): number {
  if (!SURROGATE.test(s)) return s.length;
  let n = 0;
  for (const _ of s) n++;
  return n;
}
/** The string as an array of code points only when it has astral characters (else indexes are the same). */
export function hasAstral(s: string): boolean {
  return SURROGATE.test(s);
}

/** Python's predicate string methods. */
export function pyIs(s: string, kind: string): boolean {
  if (!s) return false;
  switch (kind) {
    case 'isdigit':
    case 'isdecimal':
    case 'isnumeric':
      return /^[\p{Nd}\u00b2\u00b3\u00b9\u2070\u2074-\u2079\u2080-\u2089\u2460-\u2468\u2474-\u247c\u2488-\u2490]+$/u.test(s);
    case 'isalpha':
      return /^\p{L}+$/u.test(s);
    case 'isalnum':
      return /^[\p{L}\p{Nd}]+$/u.test(s);
    case 'isspace':
      return Array.from(s).every(isPyWhitespace);
    case 'islower':
      return s !== s.toUpperCase() && s === s.toLowerCase();
    case 'isupper':
      return s !== s.toLowerCase() && s === s.toUpperCase();
    case 'istitle':
      return s === pyTitle(s) && s !== s.toLowerCase();
  }
  return false;
}
