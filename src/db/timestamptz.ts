// timestamptz text → Date without a regular expression, for the form PostgreSQL writes in a UTC session
// (`2026-11-27 16:08:37.349123+00`); anything else (another zone, BC, infinity, years before 1000) goes to pg's own
// parser. Why: a page of 1,000 rows carries 2,000 timestamps, and pg's parser (a regular expression, its match
// array and six substrings each) was a fifth of reading such a page and a third of its garbage.
import pg from 'pg';

/** pg's own timestamptz parser, taken before database.ts installs parseTimestamptz in its place. */
export const pgTimestamptz = pg.types.getTypeParser(1184) as (text: string) => Date;
const fallback = pgTimestamptz;

/**
 * The last text read and its time: a row never edited has `last_updated` equal to `created`, read one after the
 * other, and rows written by one statement share their times. A new Date each time: a Date is mutable.
 */
let lastText = '';
let lastTime = 0;

/** The Date pg's parser makes of `text`, to the same millisecond (its float arithmetic included). */
export function parseTimestamptz(text: string): Date {
  if (text === lastText) return new Date(lastTime);
  const date = parseUtc(text);
  // Only a valid Date is kept: pg's parser answers infinity with a number and a bad text with an invalid Date.
  const time = date instanceof Date ? date.getTime() : Number.NaN;
  if (!Number.isNaN(time)) {
    lastText = text;
    lastTime = time;
  }
  return date;
}

function parseUtc(text: string): Date {
  const n = text.length;
  // YYYY-MM-DD HH:MM:SS, an optional fraction, then +00.
  if (n < 22 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 32 || text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return fallback(text);
  if (text.charCodeAt(n - 3) !== 43 || text.charCodeAt(n - 2) !== 48 || text.charCodeAt(n - 1) !== 48) return fallback(text);
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  const hour = digits(text, 11, 13);
  const minute = digits(text, 14, 16);
  const second = digits(text, 17, 19);
  let ms = 0;
  if (n > 22) {
    if (text.charCodeAt(19) !== 46) return fallback(text);
    const fraction = digits(text, 20, n - 3);
    // As pg's parser: 1000 * parseFloat('.349123'); the division is the same correctly rounded double.
    ms = 1000 * (fraction / 10 ** (n - 23));
  } else if (n !== 22) return fallback(text);
  if (year < 1000 || Number.isNaN(year + month + day + hour + minute + second + ms)) return fallback(text);
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms));
}

/** The decimal number in text[from, to), or NaN when a character is not a digit. */
function digits(text: string, from: number, to: number): number {
  let v = 0;
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return Number.NaN;
    v = v * 10 + d;
  }
  return v;
}
