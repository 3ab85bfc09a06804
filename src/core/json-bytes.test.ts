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
