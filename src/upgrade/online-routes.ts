// HTTP for the Updates page (deployment admins: users.manage): upgrade settings, whether a newer release is
// available, checking the feed now, and starting an upgrade, by feed version or by bundle upload. Shapes and
// refusals only; the rules are in settings.ts, feed.ts, start.ts and launch.ts. Progress of a started run is
// read from GET /api/system/upgrade/ (routes.ts), which answers from the run's journal.
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { can } from '../core/context.ts';
import { ApiError, badRequest, conflict, forbidden, unauthorized } from '../core/errors.ts';
import { answeredAsBuilt, checkedFirst, dbOf } from '../core/http.ts';
import { readAllowlist } from '../core/ssrf.ts';
import { detectRoot, layoutFor, type InstallLayout } from '../install/layout.ts';
import { newRunId } from './engine/context.ts';
import { availability, checkFeed, readFeedCheck } from './feed.ts';
import { readAutoStatus } from './auto-update.ts';
import { writeMailMirror } from './mail.ts';
import { CHANNELS, readUpgradeSettings, saveUpgradeSettings, settingsView, SMTP_TLS } from './settings.ts';
import { bundleMaxBytes, checkUploadedBundle, downloadRelease, feedRelease, launchChecked, refuseUnlessStartable, StartRefusal } from './start.ts';

const tags = ['system'];

function requireAdmin(req: FastifyRequest): void {
  if (!req.ctx.user) throw unauthorized();
  if (!can(req.ctx, 'users.manage')) throw forbidden('users.manage required.');
}

function installLayout(): InstallLayout | null {
  const root = detectRoot();
  return root ? layoutFor(root) : null;
}

function asApiError(err: unknown): unknown {
  if (!(err instanceof StartRefusal)) return err;
  return new ApiError(err.status, err.field ? { [err.field]: [err.message] } : { detail: err.message });
}

const settingsProperties = {
  feed_url: { type: 'string', description: 'Release feed (JSON). https://, or http:// to a host on the outbound allow-list; "" for none.' },
  channel: { type: 'string', enum: [...CHANNELS], description: 'stable: final releases only; any: pre-releases too' },
  automatic_updates: { type: 'boolean', description: 'Start an upgrade to the newest applicable release after the daily check' },
  airgapped: { type: 'boolean', description: 'No feed check and no automatic updates: upgrade by bundle upload only' },
  smtp_host: { type: 'string' },
  smtp_port: { type: 'integer', minimum: 1, maximum: 65535 },
  smtp_tls: { type: 'string', enum: [...SMTP_TLS] },
  smtp_user: { type: 'string' },
  mail_from: { type: 'string' },
  digest_recipients: { type: 'array', items: { type: 'string' }, description: 'Mailed about automatic upgrades, failed upgrades and a failed database restore' },
};

const settingsAnswer = {
  type: 'object',
  properties: { ...settingsProperties, smtp_password_set: { type: 'boolean' } },
  required: [...Object.keys(settingsProperties), 'smtp_password_set'],
};

const releaseSchema = {
  type: ['object', 'null'],
  properties: {
    version: { type: 'string' },
    bundle_url: { type: 'string' },
    sha256: { type: 'string' },
    prerelease: { type: 'boolean' },
    published: { type: ['string', 'null'] },
    notes_url: { type: ['string', 'null'] },
  },
};

const availableAnswer = {
  type: 'object',
  properties: {
    running_version: { type: 'string' },
    channel: { type: 'string', enum: [...CHANNELS] },
    airgapped: { type: 'boolean' },
    automatic_updates: { type: 'boolean', description: 'In effect (off while airgapped)' },
    feed_url: { type: 'string' },
    latest: { ...releaseSchema, description: 'Newest release the channel takes, whether or not it is newer than the running one' },
    update_available: { type: 'boolean' },
    checked_at: { type: ['string', 'null'], format: 'date-time' },
    error: { type: ['string', 'null'], description: 'Why the last check failed' },
    automatic: { type: ['object', 'null'], additionalProperties: true, description: 'What the last scheduled check decided: {checked_at, decision: {action, reason?, version?, attempt?, retry_at?}, error}' },
  },
  required: ['running_version', 'channel', 'airgapped', 'automatic_updates', 'feed_url', 'latest', 'update_available', 'checked_at', 'error', 'automatic'],
};

const startedAnswer = {
  type: 'object',
  properties: {
    run_id: { type: 'string', description: 'Id of the run: GET /api/system/upgrade/ shows it as last_upgrade.id' },
    version: { type: 'string' },
    trigger: { type: 'string', enum: ['online', 'bundle'] },
    via: { type: 'string', enum: ['systemd-run', 'process'] },
    poll: { type: 'string', description: 'Where the progress is read' },
  },
  required: ['run_id', 'version', 'trigger', 'via', 'poll'],
};

async function availableBody(app: FastifyInstance, req: FastifyRequest): Promise<Record<string, unknown>> {
  const db = dbOf(req);
  const [settings, check, automatic] = await Promise.all([readUpgradeSettings(db), readFeedCheck(db), readAutoStatus(db)]);
  return { ...availability(check, settings, app.cairnVersion), automatic };
}

/** Streams the `bundle` part to shared/upgrade/uploads/; answers the file or throws a 4xx naming the field. */
async function receiveBundle(req: FastifyRequest, layout: InstallLayout): Promise<string> {
  const dir = join(layout.upgradeDir, 'uploads');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${newRunId()}.tar.gz`);
  let received = false;
  try {
    for await (const part of req.parts()) {
      if (part.type !== 'file') throw badRequest({ [part.fieldname]: ['Unknown field: send only the file `bundle`.'] });
      if (part.fieldname !== 'bundle' || received) {
        part.file.resume();
        throw badRequest({ bundle: ['Send one file, in the field `bundle`.'] });
      }
      if (!/\.(tar\.gz|tgz)$/i.test(part.filename ?? '')) {
        part.file.resume();
        throw badRequest({ bundle: ['Upload a release bundle (cairn-X.Y.Z.tar.gz).'] });
      }
      await pipeline(part.file, createWriteStream(file, { mode: 0o600 }));
      if (part.file.truncated) throw new ApiError(413, { bundle: [`The bundle is larger than ${Math.round(bundleMaxBytes() / 1024 / 1024)} MB (CAIRN_UPGRADE_BUNDLE_MAX_MB).`] });
      received = true;
    }
  } catch (err) {
    await rm(file, { force: true });
    const code = (err as { code?: string }).code;
    if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') throw badRequest({ bundle: ['Send one file, in the field `bundle`.'] });
    throw err;
  }
  if (!received) throw badRequest({ bundle: ['Upload the release bundle as the file `bundle` (multipart/form-data).'] });
  return file;
}

function parseVersionBody(body: unknown): string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest({ non_field_errors: ['Send {"version": "X.Y.Z"} as JSON, or a bundle upload (multipart/form-data, field `bundle`).'] });
  const unknown = Object.keys(body).filter((k) => k !== 'version');
  if (unknown.length) throw badRequest(Object.fromEntries(unknown.map((k) => [k, ['Unknown field.']])));
  const version = (body as { version?: unknown }).version;
  if (typeof version !== 'string' || version.trim() === '') throw badRequest({ version: ['Give the release version to install, e.g. "1.4.0".'] });
  if (version.length > 100) throw badRequest({ version: ['At most 100 characters.'] });
  return version.trim();
}

async function startUpgrade(app: FastifyInstance, req: FastifyRequest, reply: FastifyReply): Promise<Record<string, unknown>> {
  requireAdmin(req);
  const layout = installLayout();
  if (!layout) throw conflict('This deployment is not an installed release (no install root): upgrade it the way it was installed.');
  const db = dbOf(req);
  const startedBy = `user:${req.ctx.user!.username}`;
  const running = app.cairnVersion;
  let uploaded: string | null = null;
  try {
    let bundle: string;
    let version: string;
    let trigger: 'online' | 'bundle';
    if (req.isMultipart()) {
      refuseUnlessStartable(layout);
      uploaded = await receiveBundle(req, layout);
      version = await checkUploadedBundle(uploaded, running);
      // Named by its version from here on, so the card, the log and the mail can say which release it was.
      const named = join(layout.upgradeDir, 'uploads', `cairn-${version}.tar.gz`);
      await rename(uploaded, named);
      uploaded = named;
      bundle = uploaded;
      trigger = 'bundle';
    } else {
      version = parseVersionBody(req.body);
      const settings = await readUpgradeSettings(db);
      const allowlist = await readAllowlist(db);
      const release = await feedRelease(settings, allowlist, version, running);
      refuseUnlessStartable(layout);
      bundle = await downloadRelease(layout, release, allowlist);
      trigger = 'online';
    }
    writeMailMirror(layout, await readUpgradeSettings(db));
    const launched = await launchChecked(layout, bundle, trigger, startedBy);
    reply.code(202);
    return { run_id: launched.run_id, version, trigger, via: launched.via, poll: '/api/system/upgrade/' };
  } catch (err) {
    // An upload no run took is not kept.
    if (uploaded) await rm(uploaded, { force: true }).catch(() => {});
    throw asApiError(err);
  }
}

export function registerUpgradeOnlineRoutes(app: FastifyInstance): void {
  app.get('/api/system/upgrade/settings/', {
    ...answeredAsBuilt,
    preParsing: checkedFirst(requireAdmin),
    schema: { tags, summary: 'Upgrade settings: release feed, channel, automatic updates, airgapped, SMTP for the digest mail (users.manage)', response: { 200: settingsAnswer } },
    handler: async (req) => {
      return settingsView(await readUpgradeSettings(dbOf(req)));
    },
  });

  app.patch('/api/system/upgrade/settings/', {
    ...answeredAsBuilt,
    preParsing: checkedFirst(requireAdmin),
    schema: {
      tags,
      summary: 'Change upgrade settings (users.manage); only the fields sent change',
      description: 'A bad value is a 400 naming the field, and nothing is saved. `smtp_password` is write-only ("" clears it); answers show `smtp_password_set`.',
      body: { type: 'object', properties: { ...settingsProperties, smtp_password: { type: 'string', writeOnly: true } }, additionalProperties: false },
      response: { 200: settingsAnswer },
    },
    handler: async (req) => {
      const saved = await saveUpgradeSettings(dbOf(req), req.ctx, req.body);
      const layout = installLayout();
      if (layout) writeMailMirror(layout, saved);
      return settingsView(saved);
    },
  });

  app.get('/api/system/upgrade/available/', {
    ...answeredAsBuilt,
    preParsing: checkedFirst(requireAdmin),
    schema: { tags, summary: 'Whether a newer release is available, from the last feed check (users.manage only)', response: { 200: availableAnswer } },
    handler: async (req) => {
      return availableBody(app, req);
    },
  });

  app.post('/api/system/upgrade/check/', {
    ...answeredAsBuilt,
    preParsing: checkedFirst(requireAdmin),
    schema: { tags, summary: 'Check the release feed now (users.manage; refused while airgapped)', response: { 200: availableAnswer } },
    handler: async (req) => {
      const db = dbOf(req);
      const settings = await readUpgradeSettings(db);
      if (settings.airgapped) throw badRequest({ airgapped: ['This install is airgapped: the release check is off.'] });
      if (!settings.feed_url) throw badRequest({ feed_url: ['No release feed is configured.'] });
      await checkFeed(db, settings);
      return availableBody(app, req);
    },
  });

  // Multipart is parsed only in this scope, so other routes keep refusing multipart bodies.
  app.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: bundleMaxBytes(), files: 1, fields: 0, parts: 2 } });
    scope.post('/api/system/upgrade/', {
      ...answeredAsBuilt,
    preParsing: checkedFirst(requireAdmin),
      schema: {
        tags,
        summary: 'Start an upgrade (users.manage): JSON {"version": "X.Y.Z"} from the release feed, or a bundle upload (multipart/form-data, file field `bundle`)',
        description: [
          'Answers 202 once the run has taken the upgrade lock; it goes on in a process of its own (the engine stops the web service).',
          'Poll GET /api/system/upgrade/: `last_upgrade.id` is the `run_id`; `last_upgrade.state` (running|done|failed|restore_failed),',
          '`current_step`, `steps[]` (name, status, started, ended, seconds, detail), `outcome`, `failed_step`, `error`, `output_excerpt`, `warnings`.',
          'While the run holds the site every request but /api/health/ answers 503 with Retry-After: keep polling.',
          'Refusals: 409 \'An upgrade is already running.\' (or a run waiting for `cairn upgrade recover`, or a container deployment);',
          '400 `version` for an older or the same release, an airgapped install or no feed; 404 `version` when the feed does not list it;',
          '422 `version` when the download does not match the feed\'s SHA-256; 400 `bundle` for a file that is not a newer Cairn bundle;',
          '413 `bundle` over CAIRN_UPGRADE_BUNDLE_MAX_MB (default 1024); 502 when the feed or the bundle URL cannot be fetched.',
        ].join(' '),
        consumes: ['application/json', 'multipart/form-data'],
        response: { 202: startedAnswer },
      },
      handler: async (req, reply) => startUpgrade(app, req, reply),
    });
  });
}
