// The sign-in throttle (throttle.ts): 429 with a growing Retry-After after a few failures for one account or many
// from one address, never a lock for good, recorded on the user and in the change log; valid tokens untouched.
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../../test/helpers/harness.ts';
import { ACCOUNT_FAILURES, ADDRESS_FAILURES, MAX_BLOCK_SECONDS, blockSeconds } from './throttle.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});
beforeEach(async () => {
  await sql`DELETE FROM sign_in_failures`.execute(h.database.db);
  await sql`UPDATE users SET failed_sign_ins = 0, sign_in_blocked_until = NULL`.execute(h.database.db);
});

const signIn = (username: string, password: string, from = '10.0.0.1') =>
  h.app.inject({ method: 'POST', url: '/api/auth/login/', payload: { username, password }, remoteAddress: from });

/** Ends every block now, as waiting out Retry-After would. */
async function waitOut(): Promise<void> {
  await sql`UPDATE sign_in_failures SET blocked_until = now() - interval '1 second' WHERE blocked_until IS NOT NULL`.execute(h.database.db);
}

describe('sign-in throttle', () => {
  it('blocks an account after a few failures with a growing Retry-After, refuses even the right password meanwhile, and lets it in afterwards', async () => {
    for (let i = 1; i < ACCOUNT_FAILURES; i++) expect((await signIn('alice', 'wrong')).statusCode).toBe(401);
    const first = await signIn('alice', 'wrong');
    expect(first.statusCode).toBe(429);
    expect(first.headers['retry-after']).toBe('1');
    expect(first.json().detail).toMatch(/Too many failed sign-ins for this account/);
    // Blocked: the right password is refused too, from another address as well.
    const right = await signIn('alice', 'alice-password', '10.0.0.2');
    expect(right.statusCode).toBe(429);
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);

    await waitOut();
    const second = await signIn('alice', 'wrong');
    expect(second.statusCode).toBe(429);
    expect(second.headers['retry-after']).toBe('2');
    await waitOut();
    expect((await signIn('alice', 'wrong')).headers['retry-after']).toBe('4');

    // What an administrator sees: the count and the block on the user, the block in the change log.
    const users = (await h.as('admin').get('/api/users/?username=alice')).json();
    expect(users.results[0].failed_sign_ins).toBe(ACCOUNT_FAILURES + 2);
    expect(users.results[0].sign_in_blocked_until).not.toBeNull();
    // (Changes of deployment-wide rows such as users are kept without a tenant: read from the table.)
    const { rows: changes } = await sql<{ username: string; request_id: string; after: { sign_in_blocked_until: string | null } }>`SELECT username, request_id, after
      FROM object_changes WHERE object_type = 'users.user' AND object_id = ${users.results[0].id} AND request_id LIKE 'sign-in throttle%' ORDER BY time`.execute(h.database.db);
    expect(changes).toHaveLength(3);
    expect(changes[0]).toMatchObject({ username: 'system', request_id: 'sign-in throttle (10.0.0.1)' });
    expect(changes[2]!.after.sign_in_blocked_until).not.toBeNull();

    await waitOut();
    expect((await signIn('alice', 'alice-password')).statusCode).toBe(200);
    const after = (await h.as('admin').get('/api/users/?username=alice')).json().results[0];
    expect(after).toMatchObject({ failed_sign_ins: 0, sign_in_blocked_until: null });
    // The streak is gone: a new failure is the first again.
    expect((await signIn('alice', 'wrong')).statusCode).toBe(401);
  });

  it('never blocks for good: the block is capped and an old streak is forgotten', async () => {
    expect(blockSeconds(ACCOUNT_FAILURES - 1, ACCOUNT_FAILURES)).toBe(0);
    expect(blockSeconds(ACCOUNT_FAILURES, ACCOUNT_FAILURES)).toBe(1);
    expect(blockSeconds(ACCOUNT_FAILURES + 1000, ACCOUNT_FAILURES)).toBe(MAX_BLOCK_SECONDS);
    for (let i = 0; i < ACCOUNT_FAILURES; i++) await signIn('bob', 'wrong');
    expect((await signIn('bob', 'bob-password')).statusCode).toBe(429);
    await waitOut();
    // Twenty minutes later the streak counts from one.
    await sql`UPDATE sign_in_failures SET last_failure = now() - interval '20 minutes'`.execute(h.database.db);
    expect((await signIn('bob', 'wrong')).statusCode).toBe(401);
    expect((await signIn('bob', 'bob-password')).statusCode).toBe(200);
  });

  it('answers a username nobody has exactly as an existing one, so the throttle does not reveal accounts', async () => {
    const answers = async (username: string) => {
      const codes: number[] = [];
      for (let i = 0; i <= ACCOUNT_FAILURES; i++) codes.push((await signIn(username, 'wrong', `10.0.1.${username.length}`)).statusCode);
      return codes;
    };
    expect(await answers('no-such-user')).toEqual(await answers('viewer'));
  });

  it('throttles an address guessing many accounts, and failed token checks from it, but never a valid token', async () => {
    const from = '10.0.9.9';
    const codes: number[] = [];
    for (let i = 0; i < ADDRESS_FAILURES; i++) codes.push((await signIn(`guess${i}`, 'wrong', from)).statusCode);
    expect(codes.slice(0, ADDRESS_FAILURES - 1).every((c) => c === 401)).toBe(true);
    expect(codes[ADDRESS_FAILURES - 1]).toBe(429);
    const blocked = await signIn('admin', 'admin-password', from);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().detail).toMatch(/from your address/);
    // Elsewhere, admin signs in.
    expect((await signIn('admin', 'admin-password', '10.0.9.10')).statusCode).toBe(200);

    const token = (key: string, address: string) => h.app.inject({ method: 'GET', url: '/api/tags/', headers: { authorization: `Token ${key}` }, remoteAddress: address });
    expect((await token('nope', from)).statusCode).toBe(429);
    // A valid token is answered from a blocked address too: tokens are checked, not throttled.
    expect((await token(h.tokens.admin, from)).statusCode).toBe(200);
    const tokenCodes: number[] = [];
    for (let i = 0; i < ADDRESS_FAILURES; i++) tokenCodes.push((await token('nope', '10.0.8.8')).statusCode);
    expect(tokenCodes[0]).toBe(401);
    expect(tokenCodes[ADDRESS_FAILURES - 1]).toBe(429);
  });
});
