// Password hashes: Cairn's scrypt, and Django's pbkdf2_sha256 (users imported from NetBox), which sign-in accepts
// and replaces by scrypt. The Django hash below is Python's hashlib.pbkdf2_hmac('sha256', b'correct horse',
// b'saltsalt', 1000), base64, as Django writes it.
import { describe, expect, it } from 'vitest';
import { passwordHashN } from '../../config.ts';
import { hashPassword, needsRehash, verifyPassword } from './passwords.ts';

const DJANGO = 'pbkdf2_sha256$1000$saltsalt$qQDPSZa3Ormyy9oK1Pu0ZLLwP2Svzmx3yu8OvDdq/J0=';

describe('password hashes', () => {
  it("accepts Django's pbkdf2_sha256 hash for the right password only, and asks for a re-hash", async () => {
    expect(await verifyPassword('correct horse', DJANGO)).toBe(true);
    expect(await verifyPassword('correct horsf', DJANGO)).toBe(false);
    expect(needsRehash(DJANGO)).toBe(true);
  });

  it('refuses malformed or unusable Django hashes without throwing', async () => {
    for (const bad of ['!unusable', 'pbkdf2_sha256$0$salt$qQDP', 'pbkdf2_sha256$99999999$salt$qQDP', 'pbkdf2_sha256$1000$saltsalt$', 'md5$x$y']) {
      expect(await verifyPassword('correct horse', bad), bad).toBe(false);
    }
  });

  it("keeps Cairn's own scrypt hashes as they are", async () => {
    const h = await hashPassword('s3cret');
    expect(await verifyPassword('s3cret', h)).toBe(true);
    expect(needsRehash(h)).toBe(false);
  });

  it('hashes at N = 16,384 unless CAIRN_PASSWORD_HASH_COST says otherwise, and verifies a hash at its own N', async () => {
    expect(passwordHashN({})).toBe(16384);
    expect(passwordHashN({ CAIRN_PASSWORD_HASH_COST: '12' })).toBe(4096);
    for (const bad of ['9', '21', '14.5', 'high']) {
      expect(() => passwordHashN({ CAIRN_PASSWORD_HASH_COST: bad }), bad).toThrow(/Invalid CAIRN_PASSWORD_HASH_COST "[^"]+": expected a whole number from 10 to 20/);
    }
    const cheap = await hashPassword('s3cret'); // the suite's cost (vitest.config.ts)
    expect(cheap.split('$')[1]).toBe(String(passwordHashN()));
    const saved = process.env.CAIRN_PASSWORD_HASH_COST;
    delete process.env.CAIRN_PASSWORD_HASH_COST;
    try {
      const full = await hashPassword('s3cret');
      expect(full.split('$')[1]).toBe('16384');
      expect(await verifyPassword('s3cret', full)).toBe(true);
      expect(await verifyPassword('s3cret', cheap)).toBe(true);
    } finally {
      if (saved !== undefined) process.env.CAIRN_PASSWORD_HASH_COST = saved;
    }
  });
});
