// Deploy runs: one row per Deploy press that reached an automation system. Written by the deploy service and
// the status poller only; the API reads them (no create, edit or delete: it is the dispatch history).
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { addModelHook, defineModel } from '../core/registry.ts';
import { finishJob } from '../jobs/record.ts';

export const DEPLOY_STATUSES = [
  { value: 'queued', label: 'Queued' },
  { value: 'running', label: 'Running' },
  { value: 'succeeded', label: 'Succeeded' },
  { value: 'failed', label: 'Failed' },
] as const;

export type DeployStatus = (typeof DEPLOY_STATUSES)[number]['value'];

export const deployRunModel = defineModel({
  name: 'automation.deployrun',
  table: 'deploy_runs',
  path: '/api/deploy-runs/',
  label: 'deploy run',
  tenantScoped: true,
  displayField: 'target_name',
  fields: {
    device: { kind: 'fk', target: 'dcim.device', onDelete: 'cascade', readOnly: true },
    target: { kind: 'fk', target: 'automation.automationtarget', onDelete: 'set_null', nullable: true, readOnly: true },
    target_name: { kind: 'string', maxLength: 100, readOnly: true, help: 'The target as it was named at launch (kept when the target is deleted).' },
    target_kind: { kind: 'string', maxLength: 20, readOnly: true },
    bundle: { kind: 'string', maxLength: 128, default: '', readOnly: true },
    files: { kind: 'json', default: {}, readOnly: true, help: 'The rendered files handed to the run: {path: sha256}.' },
    note: { kind: 'string', maxLength: 255, default: '', readOnly: true },
    requested_by: { kind: 'string', maxLength: 150, default: '', readOnly: true },
    status: { kind: 'choice', choices: DEPLOY_STATUSES, readOnly: true },
    status_detail: { kind: 'string', maxLength: 500, default: '', readOnly: true },
    external_id: { kind: 'string', maxLength: 100, default: '', readOnly: true, label: 'Job id', help: "The automation system's job (or task, pipeline) id." },
    external_url: { kind: 'string', maxLength: 1000, default: '', readOnly: true, label: 'Job URL' },
    job_id: { kind: 'uuid', nullable: true, readOnly: true, label: 'Background job', help: 'The /api/jobs/ record following this run.' },
    finished: { kind: 'datetime', nullable: true, readOnly: true },
  },
  searchFields: ['target_name', 'bundle', 'note', 'requested_by', 'external_id'],
  defaultOrdering: ['-created'],
  operations: { create: false, update: false, delete: false },
});

// A device deleted while one of its runs is still followed takes the run with it (cascade); its job record must
// not stay "running" for ever. One query finds them whatever the number of devices.
async function cancelRunJobs(tx: Kysely<DB>, deviceIds: string[]): Promise<void> {
  const { rows } = await sql<{ job_id: string }>`SELECT job_id FROM deploy_runs
    WHERE device_id = ANY(${deviceIds}::uuid[]) AND finished IS NULL AND job_id IS NOT NULL`.execute(tx);
  for (const r of rows) await finishJob(tx, r.job_id, { status: 'cancelled', result: 'The device was deleted; its deploy run is no longer followed.' });
}

addModelHook('dcim.device', 'beforeDelete', ({ tx, row }) => cancelRunJobs(tx, [String(row.id)]));
addModelHook('dcim.device', 'beforeDeleteMany', ({ tx, rows }) => cancelRunJobs(tx, rows.map((r) => String(r.id))));
