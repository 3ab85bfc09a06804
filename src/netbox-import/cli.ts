// `cairn import netbox <url>`: the command, its progress (a bar on a terminal, plain lines otherwise) and its
// report (a table per NetBox table on stdout, the whole report as JSON with --report FILE). A refusal is one line
// on stderr and exit code 1.
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { Database } from '../db/database.ts';
import type { ImportReport, ProgressEvent } from './importer.ts';

interface ImportFlags {
  tenant?: string;
  dryRun?: boolean;
  report?: string;
}

type WithDatabase = <T>(cmd: Command, work: (db: Database) => Promise<T>) => Promise<T>;

/** A progress printer: one redrawn bar line on a terminal, one plain line per step otherwise. */
export function progressPrinter(out: NodeJS.WriteStream = process.stdout): (e: ProgressEvent) => void {
  if (!out.isTTY) return (e) => out.write(`${e.line}\n`);
  const width = 30;
  return (e) => {
    const filled = e.total ? Math.round((Math.min(e.done, e.total) / e.total) * width) : 0;
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${e.done}/${e.total}`;
    out.write(`\r\x1b[K${bar} ${e.line}`.slice(0, (out.columns || 120) + 8));
    if (e.done >= e.total) out.write('\n');
  };
}

export function formatReport(report: ImportReport): string {
  const lines: string[] = [];
  lines.push(`NetBox ${report.netboxVersion} → tenant ${report.tenant}${report.dryRun ? ' (dry run: nothing written)' : ''} in ${(report.ms / 1000).toFixed(1)} s; ${report.changeLogEntries} change-log entries`);
  const pad = (s: string | number, n: number) => String(s).padEnd(n);
  lines.push(`${pad('NetBox table', 34)}${pad('Cairn model', 32)}${pad('read', 7)}${pad('created', 9)}${pad('updated', 9)}skipped`);
  for (const t of report.tables) {
    const skipped = Object.entries(t.skipped).map(([why, n]) => `${n} (${why})`).join('; ');
    lines.push(`${pad(t.table, 34)}${pad(t.model, 32)}${pad(t.read, 7)}${pad(t.created, 9)}${pad(t.updated, 9)}${skipped || '0'}`);
    const dropped = Object.entries(t.columnsWithoutHome).map(([c, n]) => `${c} (${n})`).join(', ');
    if (dropped) lines.push(`    values without a Cairn field: ${dropped}`);
    for (const [what, n] of Object.entries(t.adapted)) lines.push(`    ${n} rows ${what}`);
  }
  const a = report.accounts;
  lines.push(`users: ${a.users.read} read, ${a.users.created} created, ${a.users.matched} already in Cairn${a.users.matchedNames.length ? ` (${a.users.matchedNames.join(', ')}: Cairn's password kept)` : ''}; groups: ${a.groups.created} created, ${a.groups.matched} matched; tokens: ${a.tokens.created} created, ${a.tokens.unchanged} unchanged`);
  for (const n of a.tokens.notes) lines.push(`  ${n}`);
  if (a.permissionsGranted || a.permissionsNotMapped.length) lines.push(`permissions: ${a.permissionsGranted} group grants made`);
  for (const p of a.permissionsNotMapped) lines.push(`  not mapped: ${p}`);
  for (const t of report.templates) lines.push(`template ${t.name} (${t.table} ${t.netboxId}) does not ${t.stage} in Cairn's engine: ${t.error}`);
  if (report.tablesWithoutHome.length) {
    lines.push(`NetBox tables with rows that have no home in Cairn yet: ${report.tablesWithoutHome.map((t) => `${t.table} (${t.rows})`).join(', ')}`);
  }
  return lines.join('\n');
}

export function registerNetBoxImportCommands(program: Command, withDatabase: WithDatabase): void {
  const importCmd = program.command('import').description('Import data from another system.');
  importCmd
    .command('netbox <url>')
    .description('Import a NetBox database (3.7 to 4.2, read-only) into one tenant: objects keep their NetBox ids as numbers; a re-run updates what changed.')
    .option('--tenant <slug>', 'tenant to import into (created if missing)', 'default')
    .option('--dry-run', 'read and check everything, write nothing')
    .option('--report <file>', 'write the report as JSON')
    .action(async (url: string, flags: ImportFlags, cmd: Command) => {
      const { importNetBox } = await import('./importer.ts');
      const { NetBoxImportError } = await import('./source.ts');
      try {
        const report = await withDatabase(cmd, (database) =>
          importNetBox(database, { url, tenantSlug: flags.tenant, dryRun: Boolean(flags.dryRun), onProgress: progressPrinter() }),
        );
        console.log(formatReport(report));
        if (flags.report) await writeFile(flags.report, `${JSON.stringify(report, null, 2)}\n`);
      } catch (err) {
        if (err instanceof NetBoxImportError) {
          process.stderr.write(`cairn: ${err.message}\n`);
          process.exitCode = 1;
          return;
        }
        throw err;
      }
    });
}
