// Python-exact number formatting shared by `%` formatting, str.format and the round/filesizeformat filters.

/** Exact decimal digits of |x| with `p` fraction digits, rounding half to even on the exact binary value like
 *  CPython (JS toFixed rounds exact ties away from zero). */
export function toFixedPy(x: number, p: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf';
  const neg = x < 0 || Object.is(x, -0);
  const ax = Math.abs(x);
  let s: string;
  if (ax >= 1e21) {
    // toFixed switches to exponent notation here; the integer part of such a double is exact in BigInt.
    s = BigInt(ax).toString() + (p > 0 ? '.' + '0'.repeat(p) : '');
  } else if (p <= 100) {
    s = ax.toFixed(p);
    const probe = p + 30 <= 100 ? ax.toFixed(p + 30) : null;
    if (probe) {
      const tail = probe.slice(probe.length - 30);
      if (/^50*$/.test(tail)) {
        // exact tie: toFixed rounded away from zero; Python rounds to even
        const down = probe.slice(0, probe.length - 30);
        const lastDigit = Number(down[down.length - 1] === '.' ? down[down.length - 2] : down[down.length - 1]);
        if (lastDigit % 2 === 0) s = down.endsWith('.') ? down.slice(0, -1) : down;
      }
    }
  } else s = ax.toFixed(100) + '0'.repeat(p - 100);
  return (neg ? '-' : '') + s;
}

/** Python "%.pe": mantissa with p digits, exponent with at least two digits. */
export function toExpPy(x: number, p: number, upper = false): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf';
  const s = x.toExponential(Math.min(p, 100));
  const at = s.indexOf('e');
  const exp = Number(s.slice(at + 1));
  const out = `${s.slice(0, at)}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return upper ? out.toUpperCase() : out;
}

/** Python "%.pg" (and the "g" presentation type). */
export function toGeneralPy(x: number, p: number, alt = false, upper = false): string {
  if (!Number.isFinite(x)) {
    const s = Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf';
    return upper ? s.toUpperCase() : s;
  }
  if (p === 0) p = 1;
  if (x === 0) {
    const z = alt ? '0.' + '0'.repeat(p - 1) : '0';
    return (Object.is(x, -0) ? '-' : '') + z;
  }
  const e = toExpPy(x, p - 1);
  const exp = Number(e.slice(e.indexOf('e') + 1));
  let out: string;
  if (exp >= -4 && exp < p) {
    out = toFixedPy(x, p - 1 - exp);
    if (!alt && out.includes('.')) out = out.replace(/\.?0+$/, '');
  } else {
    let m = e.slice(0, e.indexOf('e'));
    if (!alt && m.includes('.')) m = m.replace(/\.?0+$/, '');
    out = m + e.slice(e.indexOf('e'));
  }
  return upper ? out.toUpperCase() : out;
}

/** Python's round(x, n) for floats: round-half-even on the exact decimal value. */
export function roundPy(x: number, n: number): number {
  if (!Number.isFinite(x)) return x;
  if (n >= 0) return Number(toFixedPy(x, Math.min(n, 100)));
  const f = 10 ** -n;
  const q = x / f;
  let r = Math.round(q);
  if (Math.abs(q % 1) === 0.5 && r % 2 !== 0) r -= 1;
  return r * f;
}

/** Groups the integer digits of a formatted number with `sep` every 3 digits. */
export function groupDigits(s: string, sep: string): string {
  const m = /^(-?)(\d+)(.*)$/.exec(s);
  if (!m) return s;
  return m[1] + m[2].replace(/\B(?=(\d{3})+(?!\d))/g, sep) + m[3];
}
