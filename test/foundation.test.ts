import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('tags CRUD', () => {
  it('creates, lists, filters, updates and deletes with change log', async () => {
    const alice = h.as('alice');
    const created = await alice.post('/api/tags/', { name: 'Core', slug: 'core', color: 'ff0000' });
    expect(created.statusCode, created.body).toBe(201);
    const tag = created.json();
    expect(tag).toMatchObject({ name: 'Core', slug: 'core', color: 'ff0000', numid: 1, display: 'Core' });
    const list = await alice.get('/api/tags/?name__ic=cor');
    expect(list.json()).toMatchObject({ count: 1, next: null, previous: null });
    const patched = await alice.patch(`/api/tags/${tag.id}/`, { description: 'core layer' });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().description).toBe('core layer');
    const changes = await alice.get(`/api/changes/?object_type=extras.tag&object_id=${tag.id}`);
    expect(changes.json().count).toBe(2);
    const del = await alice.delete(`/api/tags/${tag.id}/`);
    expect(del.statusCode).toBe(204);
    expect((await alice.get(`/api/tags/${tag.id}/`)).statusCode).toBe(404);
  });
});
