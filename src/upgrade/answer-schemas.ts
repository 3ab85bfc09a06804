// What the upgrade routes answer, as the OpenAPI document publishes it (the card is records.ts's UpgradeCard).
const string = { type: 'string' };
const nullableString = { type: ['string', 'null'] };
const closed = (properties: Record<string, object>, required = Object.keys(properties)) => ({ type: 'object', properties, required, additionalProperties: false });

const step = closed({
  name: string,
  status: string,
  started: { type: 'string', format: 'date-time' },
  ended: { type: ['string', 'null'], format: 'date-time' },
  seconds: { type: ['number', 'null'] },
  detail: string,
});

const card = closed({
  id: string,
  version_from: string,
  version_to: nullableString,
  started_by: string,
  trigger: string,
  started_at: { type: 'string', format: 'date-time' },
  finished_at: { type: ['string', 'null'], format: 'date-time' },
  state: { type: 'string', enum: ['running', 'done', 'failed', 'restore_failed'] },
  current_step: { ...nullableString, description: 'The step running now; null once the run ended.' },
  outcome: {
    anyOf: [
      { type: 'null' },
      closed({
        code: { type: 'string', enum: ['new', 'unchanged', 'restored', 'restore_failed'] },
        database: { type: 'string', enum: ['migrated', 'unchanged', 'restored', 'restore_failed'] },
        services: { type: 'string', enum: ['running', 'unhealthy', 'stopped'] },
      }),
    ],
  },
  failed_step: nullableString,
  error: nullableString,
  output_excerpt: { ...nullableString, description: 'The end of the failed command’s output.' },
  warnings: { type: 'array', items: string },
  steps: { type: 'array', items: step },
});

/** GET /api/system/upgrade/. */
export const UpgradeStatusAnswer = closed({
  running_version: string,
  installed: { type: 'boolean', description: 'Whether this deployment is an installed release (with an install root).' },
  reads_during_upgrade: {
    type: 'boolean',
    description: 'Whether an upgrade keeps answering reads, changes waiting (CAIRN_UPGRADE_SERVE_READS=1 on PostgreSQL); otherwise the site shows the maintenance page while it runs.',
  },
  last_upgrade: { anyOf: [{ type: 'null' }, card] },
  lock: closed({ held: { type: 'boolean' }, owner_alive: { type: 'boolean' }, unfinished_run: { type: 'boolean' } }),
});

export const CancelAnswer = closed({ cleared: { type: 'boolean' }, had_lock: { type: 'boolean', description: 'Whether there was a lock to clear.' } });

export const BackupAnswer = closed({
  id: string,
  file: string,
  version: string,
  created: { type: 'string', format: 'date-time' },
  size: { type: 'integer', description: 'Bytes.' },
  kind: { type: 'string', enum: ['pre-upgrade', 'manual'] },
});

export const RunningJobsAnswer = closed({ running: { type: 'array', items: closed({ kind: string, started_by: string }) } });

export const JobWriteAnswer = closed({ id: { type: 'string', format: 'uuid' } });

export const ResumeAnswer = closed({ resumed: { type: 'boolean' } });
export const ReadOnlyAnswer = closed({
  read_only: { type: 'boolean' },
  waited_ms: { type: 'integer', description: 'How long the changes under way took to end.' },
  through_recovery: { type: 'boolean', description: 'It stays read-only if the run dies, until the recovery stops this process.' },
});
export const HandOverAnswer = closed({ pid: { type: 'integer', description: "The new release's web process, which serves the port now." } });
export const ReadWriteAnswer = closed({ read_only: { type: 'boolean' } });
