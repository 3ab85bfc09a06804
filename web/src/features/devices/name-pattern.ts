// Names written as a pattern, as NetBox's forms take them (its expand_alphanumeric_pattern): `Ethernet1/[1-48]`
// is Ethernet1/1 … Ethernet1/48, `[ge,xe]-0/0/[0-3]` is eight names, `Port[a-c]` is Porta, Portb, Portc, and
// `Ethernet[01-12]` keeps the leading zero (Ethernet01 … Ethernet12). Several brackets multiply. A name without a
// bracket is itself. Used by the device's "Add components" form: the API receives the names, one object each.

/** More names than one request may create (the API's bulk limit). */
export const MAX_PATTERN_NAMES = 1000;

export class NamePatternError extends Error {}

const ITEM = /^[A-Za-z0-9]+$/;

/** Whether the text is a pattern (holds a bracket) rather than one name. */
export function isNamePattern(text: string): boolean {
  return text.includes('[') || text.includes(']');
}

/** The values of one bracket's inside: `1-48`, `a-c`, `ge,xe`, `1-4,7,9-10`. */
function expandBracket(inside: string): string[] {
  if (inside.trim() === '') throw new NamePatternError('"[]" is empty: write a range such as [1-48] or a list such as [a,b].');
  const out: string[] = [];
  for (const part of inside.split(',')) {
    const item = part.trim();
    const dash = item.indexOf('-');
    if (dash < 0) {
      if (!ITEM.test(item)) throw new NamePatternError(`"${item}" in [${inside}] is not a name part (letters and digits only).`);
      out.push(item);
      continue;
    }
    const from = item.slice(0, dash);
    const to = item.slice(dash + 1);
    if (/^\d+$/.test(from) && /^\d+$/.test(to)) {
      const a = Number(from);
      const b = Number(to);
      if (a > b) throw new NamePatternError(`[${item}] runs backwards: write the smaller number first.`);
      if (b - a + 1 > MAX_PATTERN_NAMES) throw new NamePatternError(`[${item}] makes more than ${MAX_PATTERN_NAMES} names.`);
      // A leading zero asks for every number written as wide as the first one (01 … 12).
      const width = from.length > 1 && from.startsWith('0') ? from.length : 0;
      for (let n = a; n <= b; n++) out.push(String(n).padStart(width, '0'));
      continue;
    }
    if (/^[A-Za-z]$/.test(from) && /^[A-Za-z]$/.test(to)) {
      const a = from.charCodeAt(0);
      const b = to.charCodeAt(0);
      const sameCase = (from === from.toLowerCase()) === (to === to.toLowerCase());
      if (!sameCase) throw new NamePatternError(`[${item}] mixes capitals and small letters: write [a-c] or [A-C].`);
      if (a > b) throw new NamePatternError(`[${item}] runs backwards: write the earlier letter first.`);
      for (let c = a; c <= b; c++) out.push(String.fromCharCode(c));
      continue;
    }
    throw new NamePatternError(`[${item}] is not a range: a range is two numbers (1-48) or two letters (a-c).`);
  }
  return out;
}

/** Every name a pattern stands for, in order; a NamePatternError says what is wrong with a bad one. */
export function expandNamePattern(pattern: string): string[] {
  const open = pattern.indexOf('[');
  const close = pattern.indexOf(']');
  if (open < 0 && close < 0) return [pattern];
  if (open < 0 || (close >= 0 && close < open)) throw new NamePatternError('A "]" has no "[" before it.');
  const end = pattern.indexOf(']', open);
  if (end < 0) throw new NamePatternError('A "[" is not closed with "]".');
  const inside = pattern.slice(open + 1, end);
  if (inside.includes('[')) throw new NamePatternError('Brackets cannot be nested.');
  const head = pattern.slice(0, open);
  const values = expandBracket(inside);
  const tails = expandNamePattern(pattern.slice(end + 1));
  if (values.length * tails.length > MAX_PATTERN_NAMES) throw new NamePatternError(`The pattern makes ${values.length * tails.length} names; at most ${MAX_PATTERN_NAMES} are created at once.`);
  const out: string[] = [];
  for (const v of values) for (const t of tails) out.push(`${head}${v}${t}`);
  return out;
}
