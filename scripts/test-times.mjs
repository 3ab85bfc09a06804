#!/usr/bin/env node
// Prints the slowest test files of one or more test runs and how long each run took, so a change to the suite is
// judged by numbers. Reads the file-times reports of test/runner/file-times-reporter.ts (`<name>.times.json`, what
// `.ci/run` keeps in CI_RESULTS: the whole time a file held its worker) or, failing those, vitest's JSON reports
// (which count only the tests, without hooks and imports).
//
//   npm run test:times -- <report | directory of reports> [...] [--top N]
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const args = process.argv.slice(2);
let top = 20;
const inputs = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--top') top = Number(args[++i]);
  else inputs.push(args[i]);
}
if (!inputs.length || !Number.isInteger(top) || top < 1) {
  console.error('usage: npm run test:times -- <report.json | directory of reports> [...] [--top N]');
  process.exit(2);
}

const reports = inputs.flatMap((p) => {
  if (!statSync(p).isDirectory()) return [p];
  const json = readdirSync(p).filter((f) => f.endsWith('.json')).sort();
  const times = json.filter((f) => f.endsWith('.times.json'));
  return (times.length ? times : json).map((f) => join(p, f));
});
if (!reports.length) {
  console.error(`no .json reports in ${inputs.join(', ')}`);
  process.exit(2);
}

const rows = [];
for (const file of reports) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const label = file.replace(/^.*\//, '').replace(/(\.times)?\.json$/, '');
  const files = Array.isArray(report.files) ? fromTimes(report) : fromVitest(report);
  const cpu = cpuOf(file.replace(/(\.times)?\.json$/, '.cpu.jsonl'));
  for (const f of files) rows.push({ ...f, cpu: cpu?.get(f.file), report: label });
  const tests = files.reduce((s, f) => s + f.tests, 0);
  const failed = files.reduce((s, f) => s + f.failed, 0);
  const sum = files.reduce((s, f) => s + f.ms, 0);
  const wall = Array.isArray(report.files) ? report.ended - report.started : Math.max(...files.map((f) => f.ended)) - report.startTime;
  const cpuSum = cpu ? ` and ${fmt([...cpu.values()].reduce((a, b) => a + b, 0))} of CPU` : '';
  console.log(`${label}: ${files.length} files, ${tests} tests (${failed} failed); the files held workers ${fmt(sum)}${cpuSum}; the run took ${fmt(wall)}`);
}

rows.sort((a, b) => b.ms - a.ms);
const several = reports.length > 1;
const width = Math.max(...rows.slice(0, top).map((r) => r.file.length), 4);
// With CPU reports, the files are ranked by CPU: on a machine both passes keep busy, CPU is what the wall time
// follows; the seconds a file held its worker include the time it waited for the cores.
const withCpu = rows.some((r) => r.cpu !== undefined);
if (withCpu) rows.sort((a, b) => (b.cpu ?? 0) - (a.cpu ?? 0));
const cpuCol = (ms) => (withCpu ? `${ms === undefined ? '-'.padStart(7) : (ms / 1000).toFixed(1).padStart(7)}  ` : '');
console.log(`\n${'seconds'.padStart(8)}  ${withCpu ? `${'cpu s'.padStart(7)}  ` : ''}${'tests'.padStart(5)}  ${'file'.padEnd(width)}${several ? '  run' : ''}`);
for (const r of rows.slice(0, top)) {
  console.log(`${(r.ms / 1000).toFixed(1).padStart(8)}  ${cpuCol(r.cpu)}${String(r.tests).padStart(5)}  ${r.file.padEnd(width)}${several ? `  ${r.report}` : ''}`);
}
const total = rows.reduce((s, r) => s + r.ms, 0);
const cpuTotal = withCpu ? rows.reduce((s, r) => s + (r.cpu ?? 0), 0) : undefined;
console.log(`${(total / 1000).toFixed(1).padStart(8)}  ${cpuCol(cpuTotal)}${String(rows.reduce((s, r) => s + r.tests, 0)).padStart(5)}  total of ${rows.length} files`);

/** CPU milliseconds per file from test/runner/cpu-recorder.ts's lines, or null when the run kept none. */
function cpuOf(path) {
  if (!existsSync(path)) return null;
  const byFile = new Map();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line);
    byFile.set(r.file, (byFile.get(r.file) ?? 0) + r.selfMs + r.childrenMs);
  }
  return byFile;
}

function fromTimes(report) {
  return report.files.map((f) => ({ file: f.file, ms: f.ms, tests: f.tests, failed: f.failed, ended: f.ended }));
}

function fromVitest(report) {
  return (report.testResults ?? []).map((r) => ({
    file: relative(process.cwd(), r.name),
    ms: r.endTime - r.startTime,
    tests: (r.assertionResults ?? []).length,
    failed: (r.assertionResults ?? []).filter((a) => a.status === 'failed').length,
    ended: r.endTime,
  }));
}

function fmt(ms) {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}
