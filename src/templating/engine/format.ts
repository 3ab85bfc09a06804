// Python string formatting: `fmt % values` (printf style) and str.format's mini-language, for the cases templates use.
import { typeError } from './errors.ts';
import { groupDigits, toExpPy, toFixedPy, toGeneralPy } from './numfmt.ts';
import {
  PyFloat,
  bigIntStr,
  toBigInt,
  truncToInt,
  TUPLES,
  dictGet,
  dictHas,
  isDict,
  isFloat,
  isNumeric,
  isStr,
  isUndefined,
  repr,
  strValue,
  toNumber,
  toStr,
  typeName,
  undefinedFail,
} from './values.ts';

const PERCENT_RE = /%(?:\(([^)]*)\))?([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?([diouxXeEfFgGcrsa%])/g;

function pad(s: string, width: number, left: boolean, zero: boolean): string {
  if (s.length >= width) return s;
  if (left) return s.padEnd(width);
  if (zero) {
    const sign = /^[-+ ]/.test(s) ? s[0] : '';
    const body = sign ? s.slice(1) : s;
    const pre = /^0[xXo]/.test(body) ? body.slice(0, 2) : '';
    return sign + pre + body.slice(pre.length).padStart(width - sign.length - pre.length, '0');
  }
  return s.padStart(width);
}

function requireNumber(v: unknown, conv: string): number {
  if (isNumeric(v)) return toNumber(v);
  if (isUndefined(v)) throw undefinedFail(v);
  const what = conv === 'd' || conv === 'i' || conv === 'u' ? 'a real number is required' : 'a real number is required';
  throw typeError(`%${conv} format: ${what}, not ${typeName(v)}`);
}

/** The exact integer a %d/%x conversion prints: ints as they are, floats truncated (inf/nan raise as in Python). */
function requireInt(v: unknown, conv: string): bigint {
  if (typeof v === 'bigint') return v;
  const n = requireNumber(v, conv);
  if (isFloat(v)) return toBigInt(truncToInt(n));
  return toBigInt(v);
}

function signed(s: string, n: number | bigint, flags: string): string {
  if (n < 0 || Object.is(n, -0) || s.startsWith('-')) return s;
  if (flags.includes('+')) return '+' + s;
  if (flags.includes(' ')) return ' ' + s;
  return s;
}

/** `fmt % values`. */
export function percentFormat(fmt: string, values: unknown, maxLen: number): string {
  const isMapping = isDict(values) && !Array.isArray(values);
  const args: unknown[] = Array.isArray(values) && TUPLES.has(values) ? values : [values];
  let ai = 0;
  let usedMapping = false;
  const nextArg = (): unknown => {
    if (ai >= args.length) throw typeError('not enough arguments for format string');
    return args[ai++];
  };
  const out = fmt.replace(PERCENT_RE, (whole, key: string | undefined, flags: string, w: string | undefined, prec: string | undefined, conv: string) => {
    if (conv === '%' && whole === '%%') return '%';
    let width = 0;
    if (w === '*') width = Math.trunc(requireNumber(nextArg(), '*'));
    else if (w) width = Number(w);
    if (width > maxLen) throw typeError('formatted width exceeds the output limit');
    let precision: number | undefined;
    if (prec === '*') precision = Math.trunc(requireNumber(nextArg(), '*'));
    else if (prec !== undefined) precision = prec === '' ? 0 : Number(prec);
    let v: unknown;
    if (key !== undefined) {
      if (!isMapping) throw typeError('format requires a mapping');
      usedMapping = true;
      const d = values as Parameters<typeof dictGet>[0];
      if (!dictHas(d, key)) throw typeError(`KeyError: ${repr(key)}`);
      v = dictGet(d, key);
    } else if (conv === '%') return '%';
    else v = nextArg();
    const left = flags.includes('-');
    const zero = flags.includes('0') && !left;
    let s: string;
    switch (conv) {
      case 's':
        s = toStr(v);
        if (precision !== undefined) s = s.slice(0, precision);
        return pad(s, width, left, false);
      case 'r':
      case 'a':
        s = repr(v);
        if (precision !== undefined) s = s.slice(0, precision);
        return pad(s, width, left, false);
      case 'c': {
        if (isStr(v)) s = strValue(v);
        else s = String.fromCodePoint(requireNumber(v, 'c'));
        return pad(s, width, left, false);
      }
      case 'd':
      case 'i':
      case 'u': {
        const n = requireInt(v, conv);
        s = signed(bigIntStr(n), n, flags);
        if (precision !== undefined) s = s.replace(/\d+/, (d) => d.padStart(precision ?? 0, '0'));
        return pad(s, width, left, zero);
      }
      case 'o':
      case 'x':
      case 'X': {
        if (isFloat(v)) throw typeError(`%${conv} format: an integer is required, not float`);
        const n = requireInt(v, conv);
        let body = (n < 0n ? -n : n).toString(conv === 'o' ? 8 : 16);
        if (conv === 'X') body = body.toUpperCase();
        if (flags.includes('#')) body = (conv === 'o' ? '0o' : conv === 'x' ? '0x' : '0X') + body;
        s = signed((n < 0 ? '-' : '') + body, n, flags);
        return pad(s, width, left, zero);
      }
      case 'e':
      case 'E':
      case 'f':
      case 'F':
      case 'g':
      case 'G': {
        const n = requireNumber(v, conv);
        const p = precision ?? 6;
        if (conv === 'f' || conv === 'F') s = toFixedPy(n, p);
        else if (conv === 'e' || conv === 'E') s = toExpPy(n, p, conv === 'E');
        else s = toGeneralPy(n, p, flags.includes('#'), conv === 'G');
        if (conv === 'F') s = s.toUpperCase();
        s = signed(s, n, flags);
        return pad(s, width, left, zero && Number.isFinite(n));
      }
    }
    return whole;
  });
  if (!usedMapping && ai < args.length && !(isMapping && ai === 0))
    throw typeError('not all arguments converted during string formatting');
  return out;
}

// ------------------------------------------------------------------------------------ str.format

const SPEC_RE = /^(?:(.)?([<>=^]))?([-+ ])?(z)?(#)?(0)?(\d+)?([,_])?(?:\.(\d+))?([bcdeEfFgGnosxX%])?$/s;

/** Applies a format spec (the part after ':') to one value, as format(value, spec). */
export function formatSpec(v: unknown, spec: string, maxLen: number): string {
  if (isUndefined(v)) throw undefinedFail(v);
  const m = SPEC_RE.exec(spec);
  if (!m) throw typeError(`Invalid format specifier '${spec}' for object of type '${typeName(v)}'`);
  const [, fillRaw, alignRaw, sign, , alt, zeroFlag, widthS, grouping, precS, type] = m;
  const width = widthS ? Number(widthS) : 0;
  if (width > maxLen) throw typeError('formatted width exceeds the output limit');
  const precision = precS !== undefined ? Number(precS) : undefined;
  let fill = fillRaw ?? ' ';
  let align = alignRaw;
  let s: string;
  const numeric = isNumeric(v);
  if (!numeric || type === 's') {
    if (type && type !== 's') throw typeError(`Unknown format code '${type}' for object of type '${typeName(v)}'`);
    if (sign) throw typeError('Sign not allowed in string format specifier');
    s = toStr(v);
    if (precision !== undefined) s = s.slice(0, precision);
    align = align ?? '<';
  } else {
    const n = toNumber(v);
    const intLike = !isFloat(v) && typeof v !== 'object';
    let t = type ?? '';
    if (zeroFlag && !alignRaw) {
      fill = '0';
      align = '=';
    }
    if (intLike && (t === '' || t === 'd' || t === 'n' || 'bcoxX'.includes(t))) {
      if (precision !== undefined) throw typeError('Precision not allowed in integer format specifier');
      // Exact for big ints; bools count as 0/1.
      const big = toBigInt(v);
      const a = big < 0n ? -big : big;
      if (t === 'c') s = String.fromCodePoint(n);
      else if (t === 'b' || t === 'o' || t === 'x' || t === 'X') {
        s = a.toString(t === 'b' ? 2 : t === 'o' ? 8 : 16);
        if (t === 'X') s = s.toUpperCase();
        if (alt) s = (t === 'b' ? '0b' : t === 'o' ? '0o' : t === 'x' ? '0x' : '0X') + s;
      } else s = bigIntStr(a);
      if (grouping) s = groupDigits(s, grouping);
      s = (n < 0 ? '-' : sign === '+' ? '+' : sign === ' ' ? ' ' : '') + s;
    } else {
      if ('bcoxX'.includes(t) && t) throw typeError(`Unknown format code '${t}' for object of type 'float'`);
      let body: string;
      const a = Math.abs(n);
      if (t === '' && precision === undefined) body = isFloat(v) ? toStr(new PyFloat(a)) : String(a);
      else if (t === '') {
        body = toGeneralPy(a, precision ?? 6, Boolean(alt));
        if (!/[.e]|inf|nan/.test(body)) body += '.0';
      } else if (t === 'f' || t === 'F') body = toFixedPy(a, precision ?? 6);
      else if (t === 'e' || t === 'E') body = toExpPy(a, precision ?? 6, t === 'E');
      else if (t === 'g' || t === 'G' || t === 'n') body = toGeneralPy(a, precision ?? 6, Boolean(alt), t === 'G');
      else body = toFixedPy(a * 100, precision ?? 6) + '%';
      if (t === 'F') body = body.toUpperCase();
      if (grouping) body = groupDigits(body, grouping);
      const neg = n < 0 || Object.is(n, -0);
      s = (neg ? '-' : sign === '+' ? '+' : sign === ' ' ? ' ' : '') + body;
      t = '';
    }
    align = align ?? '>';
  }
  if (s.length >= width) return s;
  const padLen = width - s.length;
  switch (align) {
    case '<':
      return s + fill.repeat(padLen);
    case '>':
      return fill.repeat(padLen) + s;
    case '^': {
      const l = Math.floor(padLen / 2);
      return fill.repeat(l) + s + fill.repeat(padLen - l);
    }
    default: {
      const signPart = /^[-+ ]/.test(s) ? s[0] : '';
      const pre = /^[-+ ]?(0[bBoOxX])/.exec(s);
      const head = signPart + (pre ? pre[1] : '');
      return head + fill.repeat(padLen) + s.slice(head.length);
    }
  }
}

export type FieldAccess = (obj: unknown, key: string | number, isAttr: boolean) => unknown;

/** str.format(*args, **kwargs); attribute/item access in fields goes through the sandboxed accessor. */
export function strFormat(
  fmt: string,
  args: unknown[],
  kwargs: Readonly<Record<string, unknown>>,
  access: FieldAccess,
  maxLen: number,
): string {
  let auto = 0;
  let out = '';
  let i = 0;
  while (i < fmt.length) {
    const c = fmt[i];
    if (c === '{') {
      if (fmt[i + 1] === '{') {
        out += '{';
        i += 2;
        continue;
      }
      // find the matching close brace, allowing one level of nesting inside the spec
      let depth = 1;
      let j = i + 1;
      while (j < fmt.length && depth > 0) {
        if (fmt[j] === '{') depth++;
        else if (fmt[j] === '}') depth--;
        if (depth > 0) j++;
      }
      if (j >= fmt.length) throw typeError("Single '{' encountered in format string");
      const field = fmt.slice(i + 1, j);
      i = j + 1;
      const m = /^([^.[!:]*)((?:\.[^.[!:]+|\[[^\]]*\])*)(?:!([rsa]))?(?::(.*))?$/s.exec(field);
      if (!m) throw typeError(`invalid format field '${field}'`);
      const [, first, rest, conv, specRaw] = m;
      let v: unknown;
      if (first === '') {
        if (auto >= args.length) throw typeError(`Replacement index ${auto} out of range for positional args tuple`);
        v = args[auto++];
      } else if (/^\d+$/.test(first)) {
        const k = Number(first);
        if (k >= args.length) throw typeError(`Replacement index ${k} out of range for positional args tuple`);
        v = args[k];
      } else {
        if (!Object.prototype.hasOwnProperty.call(kwargs, first)) throw typeError(`KeyError: '${first}'`);
        v = kwargs[first];
      }
      for (const part of rest.match(/\.[^.[]+|\[[^\]]*\]/g) ?? []) {
        if (part[0] === '.') v = access(v, part.slice(1), true);
        else {
          const k = part.slice(1, -1);
          v = access(v, /^\d+$/.test(k) ? Number(k) : k, false);
        }
      }
      if (conv === 'r' || conv === 'a') v = repr(v);
      else if (conv === 's') v = toStr(v);
      const spec = (specRaw ?? '').replace(/\{([^}]*)\}/g, (_w, name: string) => {
        if (name === '') return toStr(args[auto++]);
        if (/^\d+$/.test(name)) return toStr(args[Number(name)]);
        return toStr(kwargs[name]);
      });
      out += spec === '' ? toStr(v) : formatSpec(v, spec, maxLen);
      continue;
    }
    if (c === '}') {
      if (fmt[i + 1] === '}') {
        out += '}';
        i += 2;
        continue;
      }
      throw typeError("Single '}' encountered in format string");
    }
    out += c;
    i++;
  }
  return out;
}
