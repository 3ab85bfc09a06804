// scrypt password hashes: `scrypt$N$r$p$salt$hash` (hex), compared in constant time. Django's
// `pbkdf2_sha256$iterations$salt$base64` (users imported from NetBox) is accepted too, and replaced by an scrypt
// hash at the first successful sign-in (needsRehash), so a NetBox user keeps their password across the move.
import { passwordHashN } from '../../config.ts';
import { pbkdf2 as pbkdf2Cb, randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

function scrypt(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    // scrypt needs 128·N·r bytes; Node's default ceiling (32 MiB) would refuse costs from 15 up.
    scryptCb(password, salt, keylen, { ...opts, maxmem: 256 * (opts.N ?? 16384) * (opts.r ?? 8) }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

const R = 8;
const P = 1;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const N = passwordHashN();
  const key = await scrypt(password, salt, 32, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('hex')}$${key.toString('hex')}`;
}

function pbkdf2Sha256(password: string, salt: string, iterations: number, keylen: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    pbkdf2Cb(password, salt, iterations, keylen, 'sha256', (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** Django's iteration counts run from 10,000 (1.x) to 1,000,000 (5.x); past that a stored hash is a denial of service. */
const DJANGO_MAX_ITERATIONS = 2_000_000;

async function verifyDjangoPbkdf2(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 4) return false;
  const [, iterText, salt, keyB64] = parts as [string, string, string, string];
  const iterations = Number(iterText);
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > DJANGO_MAX_ITERATIONS) return false;
  const expected = Buffer.from(keyB64, 'base64');
  if (expected.length === 0) return false;
  // Django hashes the salt as text (its UTF-8 bytes), not decoded.
  const key = await pbkdf2Sha256(password, salt, iterations, expected.length);
  return timingSafeEqual(key, expected);
}

/** True when a stored hash is in a format only accepted for imported users: re-hash it after a successful sign-in. */
export function needsRehash(stored: string): boolean {
  return !stored.startsWith('scrypt$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (stored.startsWith('pbkdf2_sha256$')) return verifyDjangoPbkdf2(password, stored);
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, saltHex, keyHex] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(keyHex, 'hex');
  const key = await scrypt(password, Buffer.from(saltHex, 'hex'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

export function randomPassword(): string {
  return randomBytes(12).toString('base64url');
}
