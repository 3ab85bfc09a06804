import { describe, expect, it } from 'vitest';
import { jsonBytes } from './json-bytes.ts';

describe('jsonBytes', () => {
  const same = (data: unknown) => expect(jsonBytes(data).toString('utf8')).toBe(JSON.stringify(data));

  it('writes a list envelope byte for byte as JSON.stringify does, rows and displays with any character', () => {
    const rows = Array.from({ length: 300 }, (_v, i) => ({ id: i, display: `ams1-leaf${i} › Ethernet${i}`, note: i % 7 ? undefined : 'Zürich 東京 😀', when: new Date(0) }));
    same({ count: 300, next: 'http://x/?a="results":[]', previous: null, results: rows });
    same({ results: [], count: 0 });
    same({ count: 2, results: [undefined, () => 1, null, 'a'], extra: { results: [] }, skipped: undefined });
  });

  it('writes pages of any length and row size across its batches', () => {
    // Small rows (batches of hundreds), rows over a batch's size (batches of one), and the two mixed, so batch sizes
    // change from one batch to the next; undefined and functions among them become null as in an array.
    const small = Array.from({ length: 5_000 }, (_v, i) => ({ i, name: `tag-${i}` }));
    const big = Array.from({ length: 7 }, (_v, i) => ({ i, text: 'x›'.repeat(9_000 + i) }));
    const mixed = Array.from({ length: 400 }, (_v, i) => (i % 50 === 0 ? big[i % 7] : i % 13 === 0 ? undefined : i % 17 === 0 ? () => i : small[i]));
    for (const results of [small, big, mixed, [], [undefined], [big[0]]]) same({ count: results.length, results });
    same(mixed);
  });

  it('writes arrays, plain answers and envelopes that are not plain objects as JSON.stringify does', () => {
    same([1, 'two', { three: '›' }, undefined]);
    same({ id: 'x', name: 'leaf › 1' });
    same({ results: 'not a list' });
    same({ toJSON: () => ({ results: [1] }) });
    same({ results: [1], toJSON: () => 'mine' });
    same(null);
    same('text');
    const withProto = Object.assign(Object.create({ inherited: 1 }) as object, { results: [1, 2] });
    same(withProto);
  });

  it('encodes as UTF-8', () => {
    expect(jsonBytes({ results: ['›'] }).equals(Buffer.from('{"results":["›"]}'))).toBe(true);
  });
});
