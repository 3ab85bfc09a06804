// What the maintenance responders (responder.ts in the engine, responder-process.ts on its own) answer while the
// site is down for an upgrade: 503 + Retry-After to everything, /api/health/ with maintenance true, and the one
// exception — GET /api/system/upgrade/ for a signed-in admin (see ../maintenance-admins.ts) is the last upgrade
// card read from the journal on disk, so the Updates page keeps showing the run's steps through the window.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { currentAdminSnapshot, isSnapshotAdmin } from '../maintenance-admins.ts';
import { upgradeStatus } from '../records.ts';
import { upgradeKeepsReads } from '../reads-setting.ts';
import type { InstallLayout } from '../../install/layout.ts';
import { readLock } from '../../install/lock.ts';

export const RETRY_AFTER_SECONDS = 30;

function upgradeCardFor(req: IncomingMessage, layout: InstallLayout, version: string): Record<string, unknown> | null {
  const lock = readLock(layout.lockFile);
  if (!isSnapshotAdmin(currentAdminSnapshot(layout, lock), req.headers)) return null;
  // The same shape as the web's GET /api/system/upgrade/, plus `maintenance` so a client can tell who answered.
  return { running_version: version, installed: true, reads_during_upgrade: upgradeKeepsReads(layout, process.env), maintenance: true, ...upgradeStatus(layout) };
}

export function maintenanceAnswer(layout: InstallLayout | null, version: string): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const health = path === '/api/health/' || path === '/api/health';
    const card = layout && req.method === 'GET' && (path === '/api/system/upgrade/' || path === '/api/system/upgrade') ? safeCard(req, layout, version) : null;
    if (card) {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', connection: 'close' });
      res.end(JSON.stringify(card));
      req.resume();
      return;
    }
    const body = health
      ? { status: 'unavailable', database: false, maintenance: true, version, code_behind_db: [], db_behind_code: [] }
      : { detail: 'Cairn is being upgraded. Try again shortly.', maintenance: true };
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': String(RETRY_AFTER_SECONDS), connection: 'close' });
    res.end(JSON.stringify(body));
    req.resume();
  };
}

/** A card that cannot be read (a journal being rewritten) is answered like any other request: 503, try again. */
function safeCard(req: IncomingMessage, layout: InstallLayout, version: string): Record<string, unknown> | null {
  try {
    return upgradeCardFor(req, layout, version);
  } catch {
    return null;
  }
}
