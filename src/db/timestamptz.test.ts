import { describe, expect, it } from 'vitest';
import { parseTimestamptz, pgTimestamptz } from './timestamptz.ts';
import '../db/database.ts';

const reference = pgTimestamptz as (text: string) => Date | number | null;

describe('parseTimestamptz', () => {
  it('is what pg reads timestamptz with, pg\'s own parser kept for the rest', async () => {
    const pg = (await import('pg')).default;
    expect(pg.types.getTypeParser(1184)).toBe(parseTimestamptz);
    expect(pgTimestamptz).not.toBe(parseTimestamptz);
  });

  it('gives the Date that pg\'s parser gives, to the millisecond', () => {
    const texts = [
      '2026-11-27 16:08:37+00', '2026-11-27 16:08:37.3+00', '2026-11-27 16:08:37.29+00', '2026-11-27 16:08:37.291+00',
      '2026-11-27 16:08:37.291123+00', '2000-02-29 23:59:59.999999+00', '1970-01-01 00:00:00+00', '9999-12-31 23:59:59.999999+00',
      '2026-11-27 16:08:37.349123+01', '2026-11-27 16:08:37+05:30', '0099-01-01 00:00:00+00', '0500-06-01 12:00:00+00',
      '2026-11-27 16:08:37.5+00 BC', 'infinity', '-infinity', '2026-11-27 1x:08:37+00', '2026-11-27 16:08:37.+00',
    ];
    // Every millisecond fraction's three digits, and some of six, where float arithmetic rounds down.
    for (let ms = 0; ms < 1000; ms++) texts.push(`2026-01-02 03:04:05.${String(ms).padStart(3, '0')}+00`);
    for (let k = 0; k < 2000; k++) texts.push(`2026-01-02 03:04:05.${String((k * 7919) % 1_000_000).padStart(6, '0')}+00`);
    for (const text of texts) {
      const want = reference(text);
      const got = parseTimestamptz(text) as unknown;
      if (want instanceof Date) expect((got as Date).getTime(), text).toBe(want.getTime());
      else expect(got, text).toEqual(want);
    }
  });

  it('reads a text equal to the last one as a new Date of the same time, never the same object', () => {
    const texts = ['2026-11-27 16:08:37.291123+00', '2026-11-27 16:08:37.291123+00', 'infinity', 'infinity', '2026-11-27 16:08:37.291123+00',
      '2026-11-27 1x:08:37+00', '2026-11-27 1x:08:37+00', '2001-01-01 00:00:00+00', '2001-01-01 00:00:00+00', '2026-11-27 16:08:37.291123+00'];
    let previous: unknown = null;
    for (const text of texts) {
      const want = reference(text);
      const got = parseTimestamptz(text) as unknown;
      if (want instanceof Date) {
        expect((got as Date).getTime(), text).toBe(want.getTime());
        expect(got, text).not.toBe(previous);
      } else expect(got, text).toEqual(want);
      previous = got;
    }
    const a = parseTimestamptz('2030-05-05 05:05:05+00');
    a.setUTCFullYear(1999);
    expect(parseTimestamptz('2030-05-05 05:05:05+00').toISOString()).toBe('2030-05-05T05:05:05.000Z');
  });
});
