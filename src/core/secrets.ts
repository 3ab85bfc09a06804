// Secrets at rest: AES-256-GCM with one deployment key. Secret fields (keychain keys, webhook secrets,
// automation tokens, device passwords) are encrypted by their FieldDef `transform` on write and are never
// decrypted except by `decryptSecret`, which only the audited reveal call and the outbound senders use (webhook
// signing and headers, automation-target tokens: src/extras/webhook-delivery.ts, src/automation/deploy-launch.ts).
//
// Where the key comes from (decided once, at app start, by `configureSecrets` in buildApp):
//  1. CAIRN_SECRET_KEY: 64 hex characters or base64 of 32 bytes. Always wins.
//  2. Embedded database (PGlite): `<data dir>/secret.key`, generated on the first secret write (mode 0600)
//     and read back afterwards. The key lives beside the data it protects only for the single-machine
//     embedded setup, where both sit on one disk anyway; backups of the data dir must include it.
//  3. PostgreSQL without CAIRN_SECRET_KEY: no key. Writing a secret is refused with a 400 that says to set
//     CAIRN_SECRET_KEY. We deliberately do not keep a generated key in the database: a dump of the
//     database would then carry both the ciphertext and the key, which makes the encryption decorative.
//
// FieldDef.transform has no access to the app config, hence this module-level holder. Several apps in one
// process (tests) share it; the last buildApp wins, which is fine because a process serves one deployment.
import type { ComputedField } from './registry.ts';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { badRequest } from './errors.ts';

const VERSION_TAG = 'v1';
const IV_BYTES = 12;

export class SecretKeyError extends Error {}

interface KeySource {
  /** The key given in the environment, already parsed. */
  key: Buffer | null;
  /** Where the embedded deployment keeps its generated key; null on PostgreSQL. */
  keyFile: string | null;
}

let source: KeySource = { key: null, keyFile: null };
let cachedFileKey: { file: string; key: Buffer } | null = null;

/** Parses CAIRN_SECRET_KEY: 64 hex characters, or base64 that decodes to exactly 32 bytes. */
export function parseSecretKey(text: string): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) {
    const bytes = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === 32) return bytes;
  }
  throw new SecretKeyError('CAIRN_SECRET_KEY must be 64 hex characters or base64 of 32 bytes (e.g. `openssl rand -hex 32`).');
}

/** Called by buildApp. `keyFile` is set only for the embedded database. Throws on a malformed key. */
export function configureSecrets(opts: { secretKey: string | null; keyFile: string | null }): void {
  source = { key: opts.secretKey ? parseSecretKey(opts.secretKey) : null, keyFile: opts.secretKey ? null : opts.keyFile };
}

function readOrCreateKeyFile(file: string): Buffer {
  if (cachedFileKey?.file === file) return cachedFileKey.key;
  let key: Buffer;
  if (existsSync(file)) {
    key = parseSecretKey(readFileSync(file, 'utf8'));
  } else {
    mkdirSync(dirname(file), { recursive: true });
    key = randomBytes(32);
    // `wx`: if another process created it a moment ago, fail here and read theirs rather than overwrite it.
    try {
      writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
      chmodSync(file, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      key = parseSecretKey(readFileSync(file, 'utf8'));
    }
  }
  cachedFileKey = { file, key };
  return key;
}

function currentKey(): Buffer | null {
  if (source.key) return source.key;
  if (source.keyFile) return readOrCreateKeyFile(source.keyFile);
  return null;
}

export function secretsAvailable(): boolean {
  return source.key !== null || source.keyFile !== null;
}

/** `v1:<iv>:<tag>:<ciphertext>`, each part base64. */
export function encryptSecret(plain: string): string {
  const key = currentKey();
  if (!key) throw new SecretKeyError('No secret key configured.');
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [VERSION_TAG, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
}

/** For the audited reveal call and the outbound senders only. Throws if the value was not written with the current key. */
export function decryptSecret(stored: string): string {
  const key = currentKey();
  if (!key) throw new SecretKeyError('No secret key configured: set CAIRN_SECRET_KEY.');
  const parts = stored.split(':');
  if (parts.length !== 4 || parts[0] !== VERSION_TAG) throw new SecretKeyError('The stored value is not an encrypted secret.');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(parts[1]!, 'base64'));
  decipher.setAuthTag(Buffer.from(parts[2]!, 'base64'));
  try {
    return Buffer.concat([decipher.update(Buffer.from(parts[3]!, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretKeyError('The secret cannot be decrypted with the configured key (was CAIRN_SECRET_KEY changed?).');
  }
}

export function isEncryptedSecret(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith(`${VERSION_TAG}:`) && value.split(':').length === 4;
}

/**
 * The FieldDef.transform for a secret field: `secretField('key')` encrypts strings, and JSON values as their
 * JSON text. Refuses with a 400 naming the field when the deployment has no key.
 */
export function secretTransform(field: string): (value: unknown) => Promise<unknown> {
  return async (value: unknown) => {
    if (!secretsAvailable()) {
      throw badRequest({ [field]: ['Cannot store secrets: this deployment has no secret key. Set CAIRN_SECRET_KEY (64 hex characters) and restart.'] });
    }
    const plain = typeof value === 'string' ? value : JSON.stringify(value);
    return encryptSecret(plain);
  };
}

/** `<field>_set`: whether a secret is stored; the only thing about it anyone may read. */
export function secretSetField(column: string, label: string): ComputedField {
  return {
    label,
    kind: 'boolean',
    schema: { type: 'boolean' },
    async load({ rows }) {
      return new Map(rows.map((r) => [String(r.id), r[column] !== null && r[column] !== undefined && r[column] !== '']));
    },
  };
}
