import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-time.ts';

describe('isoTime', () => {
  it('writes what toISOString writes', () => {
    const edges = [
      0, 1, 999, 86_399_999, 86_400_000, 951_782_400_000 /* 2000-02-29 */, 951_868_800_000, 4_107_542_400_000 /* 2100-03-01 */,
      1_764_260_917_349, 253_402_300_799_999 /* 9999-12-31T23:59:59.999Z */, 253_402_300_800_000, -1, -62_198_755_200_000, 8.64e15, -8.64e15,
    ];
    // A seeded walk across 1970–9999 and the years around it, so a failure repeats.
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
    const times = [...edges, ...Array.from({ length: 20_000 }, () => Math.floor((random() * 1.2 - 0.1) * 253_402_300_800_000))];
    for (const t of times) expect(isoTime(new Date(t)), String(t)).toBe(new Date(t).toISOString());
    // The same time twice, the same second with another millisecond, the same day, then another day: what is kept
    // from the last call must not leak into the next.
    const kept = [5_000, 5_000, 5_007, 65_007, 86_400_000 * 2 + 5_007, 5_007].map((t) => isoTime(new Date(t)));
    expect(kept).toEqual([5_000, 5_000, 5_007, 65_007, 86_400_000 * 2 + 5_007, 5_007].map((t) => new Date(t).toISOString()));
    expect([isoTime(new Date(86_400_000 * 3 + 5)), isoTime(new Date(86_400_000 * 3 + 6)), isoTime(new Date(86_400_000 * 9))]).toEqual([
      '1970-01-04T00:00:00.005Z',
      '1970-01-04T00:00:00.006Z',
      '1970-01-10T00:00:00.000Z',
    ]);
  });

  it('refuses an invalid date as toISOString does', () => {
    expect(() => isoTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});
