// Deployment-wide upgrade settings (release feed, channel, automatic updates, airgapped, SMTP for the digest
// mail), kept in system_state like the end-of-life settings so the web process, workers and the upgrade engine
// read the same values. Changes go to the change log with the password masked; the password itself is stored
// encrypted with the deployment key and is never answered.
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import { ErrorCollector } from '../core/errors.ts';
import { recordChanges, SECRET_MASK, type ChangeSubject } from '../core/changelog.ts';
import { checkOutboundUrl, readAllowlist } from '../core/ssrf.ts';
import { encryptSecret, secretsAvailable } from '../core/secrets.ts';
import { readState, writeState } from '../core/state.ts';

export const CHANNELS = ['stable', 'any'] as const;
export type Channel = (typeof CHANNELS)[number];
export const SMTP_TLS = ['none', 'starttls', 'tls'] as const;
export type SmtpTls = (typeof SMTP_TLS)[number];

export interface UpgradeSettings {
  feed_url: string;
  channel: Channel;
  automatic_updates: boolean;
  airgapped: boolean;
  smtp_host: string;
  smtp_port: number;
  smtp_tls: SmtpTls;
  smtp_user: string;
  /** Encrypted with the deployment key (core/secrets.ts); '' when unset. Never leaves the server. */
  smtp_password: string;
  mail_from: string;
  digest_recipients: string[];
}

/** What the API answers: the password only as whether one is set. */
export type UpgradeSettingsView = Omit<UpgradeSettings, 'smtp_password'> & { smtp_password_set: boolean };

export const UPGRADE_SETTINGS_KEY = 'upgrade_settings';
export const DEFAULT_UPGRADE_SETTINGS: UpgradeSettings = {
  feed_url: '',
  channel: 'stable',
  automatic_updates: false,
  airgapped: false,
  smtp_host: '',
  smtp_port: 587,
  smtp_tls: 'starttls',
  smtp_user: '',
  smtp_password: '',
  mail_from: '',
  digest_recipients: [],
};

export const upgradeSettingsChangeModel: ChangeSubject = { name: 'system.upgradesettings', tenantScoped: false };
const SETTINGS_OBJECT_ID = '00000000-0000-7000-8000-0000000a9a1e';
const MAX_RECIPIENTS = 50;

export async function readUpgradeSettings(db: Kysely<DB>): Promise<UpgradeSettings> {
  return { ...DEFAULT_UPGRADE_SETTINGS, ...(await readState<Partial<UpgradeSettings>>(db, UPGRADE_SETTINGS_KEY)) };
}

export function settingsView(s: UpgradeSettings): UpgradeSettingsView {
  const { smtp_password, ...rest } = s;
  return { ...rest, smtp_password_set: smtp_password !== '' };
}

/** Airgapped turns the check and automatic updates off, whatever automatic_updates says. */
export function effectiveAutomatic(s: UpgradeSettings): boolean {
  return s.automatic_updates && !s.airgapped;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// Deliberately plain: one @, no spaces or angle brackets (they would break the SMTP envelope), a dot in the domain.
const ADDRESS_RE = /^[^\s@<>,;"]+@[^\s@<>,;"]+\.[^\s@<>,;"]+$/;
const HOST_RE = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$|^\d{1,3}(\.\d{1,3}){3}$|^\[?[0-9a-f:]+\]?$/i;
const CONTROL_RE = /[\u0000-\u001f\u007f]/;

function text(errors: ErrorCollector, field: string, v: unknown, max: number): string | null {
  if (typeof v !== 'string') {
    errors.add(field, 'Expected a string.');
    return null;
  }
  if (v.length > max) {
    errors.add(field, `At most ${max} characters.`);
    return null;
  }
  if (CONTROL_RE.test(v)) {
    errors.add(field, 'Control characters are not allowed.');
    return null;
  }
  return v.trim();
}

const KNOWN = new Set(['feed_url', 'channel', 'automatic_updates', 'airgapped', 'smtp_host', 'smtp_port', 'smtp_tls', 'smtp_user', 'smtp_password', 'mail_from', 'digest_recipients']);

/** Validates a partial body against the current values; every bad field is named and nothing is written. */
export async function validateUpgradeSettings(db: Kysely<DB>, body: unknown, current: UpgradeSettings): Promise<UpgradeSettings> {
  const errors = new ErrorCollector();
  if (!isPlainObject(body)) {
    errors.add('non_field_errors', 'Send a JSON object of settings.');
    errors.throwIfAny();
  }
  const input = body as Record<string, unknown>;
  for (const key of Object.keys(input)) if (!KNOWN.has(key)) errors.add(key, 'Unknown field.');
  const next: UpgradeSettings = { ...current, digest_recipients: [...current.digest_recipients] };

  for (const flag of ['automatic_updates', 'airgapped'] as const) {
    if (!(flag in input)) continue;
    if (typeof input[flag] !== 'boolean') errors.add(flag, 'Expected true or false.');
    else next[flag] = input[flag];
  }
  if ('channel' in input) {
    if (!(CHANNELS as readonly unknown[]).includes(input.channel)) errors.add('channel', `Choose one of: ${CHANNELS.join(', ')}.`);
    else next.channel = input.channel as Channel;
  }
  if ('smtp_tls' in input) {
    if (!(SMTP_TLS as readonly unknown[]).includes(input.smtp_tls)) errors.add('smtp_tls', `Choose one of: ${SMTP_TLS.join(', ')}.`);
    else next.smtp_tls = input.smtp_tls as SmtpTls;
  }
  if ('smtp_port' in input) {
    const v = input.smtp_port;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 65535) errors.add('smtp_port', 'Enter a port number from 1 to 65535.');
    else next.smtp_port = v;
  }
  if ('feed_url' in input) {
    const v = text(errors, 'feed_url', input.feed_url, 500);
    if (v !== null) {
      const problem = v === '' ? null : checkOutboundUrl(v, await readAllowlist(db));
      if (problem) errors.add('feed_url', problem);
      else next.feed_url = v;
    }
  }
  if ('smtp_host' in input) {
    const v = text(errors, 'smtp_host', input.smtp_host, 253);
    if (v !== null) {
      if (v !== '' && !HOST_RE.test(v)) errors.add('smtp_host', 'Enter a host name or an IP address.');
      else next.smtp_host = v;
    }
  }
  if ('smtp_user' in input) {
    const v = text(errors, 'smtp_user', input.smtp_user, 200);
    if (v !== null) next.smtp_user = v;
  }
  if ('smtp_password' in input) {
    const v = input.smtp_password;
    if (typeof v !== 'string' || v.length > 500 || CONTROL_RE.test(v)) errors.add('smtp_password', 'Expected a string of at most 500 characters without control characters ("" clears it).');
    else if (v === '') next.smtp_password = '';
    else if (!secretsAvailable()) errors.add('smtp_password', 'Cannot store the password: this deployment has no secret key. Set CAIRN_SECRET_KEY (64 hex characters) and restart.');
    else next.smtp_password = encryptSecret(v);
  }
  if ('mail_from' in input) {
    const v = text(errors, 'mail_from', input.mail_from, 254);
    if (v !== null) {
      if (v !== '' && !ADDRESS_RE.test(v)) errors.add('mail_from', `"${v}" is not an e-mail address.`);
      else next.mail_from = v;
    }
  }
  if ('digest_recipients' in input) {
    const v = input.digest_recipients;
    if (!Array.isArray(v) || !v.every((e) => typeof e === 'string')) errors.add('digest_recipients', 'Expected a list of e-mail addresses.');
    else {
      const list = [...new Set(v.map((e) => e.trim()).filter(Boolean))];
      const bad = list.filter((e) => e.length > 254 || !ADDRESS_RE.test(e));
      if (bad.length) errors.add('digest_recipients', `Not an e-mail address: ${bad.slice(0, 5).join(', ')}.`);
      else if (list.length > MAX_RECIPIENTS) errors.add('digest_recipients', `At most ${MAX_RECIPIENTS} recipients.`);
      else next.digest_recipients = list;
    }
  }
  errors.throwIfAny();
  // Checked on the result, so a PATCH that sends only one of the pair is judged with the stored other half.
  if (next.smtp_host && !next.mail_from && ('smtp_host' in input || 'mail_from' in input)) errors.add('mail_from', 'A sender address is needed when an SMTP host is set.');
  errors.throwIfAny();
  return next;
}

function masked(s: UpgradeSettings): Record<string, unknown> {
  return { ...s, smtp_password: s.smtp_password ? SECRET_MASK : '' };
}

export async function saveUpgradeSettings(db: Kysely<DB>, ctx: RequestContext, body: unknown): Promise<UpgradeSettings> {
  const current = await readUpgradeSettings(db);
  const next = await validateUpgradeSettings(db, body, current);
  if (JSON.stringify(current) === JSON.stringify(next)) return current;
  await db.transaction().execute(async (tx) => {
    await writeState(tx, UPGRADE_SETTINGS_KEY, next);
    const before = masked(current);
    // A changed password shows as changed without showing either value.
    const after = { ...masked(next), ...(next.smtp_password !== current.smtp_password && next.smtp_password ? { smtp_password: `${SECRET_MASK} (changed)` } : {}) };
    await recordChanges(tx, ctx, [{ model: upgradeSettingsChangeModel, action: 'update', objectId: SETTINGS_OBJECT_ID, repr: 'Upgrade settings', before, after, tenantId: null }]);
  });
  return next;
}
