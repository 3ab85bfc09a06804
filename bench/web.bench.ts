// The device list in a real browser over a large inventory (default 50,000 devices; BENCH_WEB_DEVICES to change):
// first meaningful paint of /objects/dcim.device (navigation start → first table rows drawn) and a page change
// (click Next → the new rows drawn), each against the bare API call for the same page made from the same
// browser in the same run. Also the gzipped JavaScript the first page loaded. Needs `npm run build` and
// Debian's chromium (test/web/helpers.ts: its headless shell when installed).
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { CHROMIUM, chromiumAvailable, openBrowser, signIn, startServer } from '../test/web/helpers.ts';
import { benchSize, TINY } from './helpers.ts';

// Tiny: enough for a second page of 50 (the page change clicks Next).
const DEVICES = benchSize('BENCH_WEB_DEVICES', 50_000, 60, { devices: true });
const RUNS = TINY ? 1 : 5;

// Clicks Next and resolves with the milliseconds until the new rows are drawn. A string, because tsx would wrap
// named functions inside a closure in a `__name` helper the page does not have.
const PAGE_CHANGE_SCRIPT = `(async () => {
  const range = () => document.querySelector('[data-testid="page-range"]')?.textContent ?? '';
  const before = range();
  const next = [...document.querySelectorAll('button')].find((b) => b.textContent.includes('Next'));
  const start = performance.now();
  next.click();
  await new Promise((done) => {
    const check = () => (range() !== before && !document.querySelector('[aria-busy="true"]') ? done() : requestAnimationFrame(check));
    check();
  });
  return performance.now() - start;
})()`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number) => `${x.toFixed(0)} ms`;

export default async function main(): Promise<void> {
  if (!chromiumAvailable()) {
    console.log(`skipped: ${CHROMIUM} is not installed`);
    return;
  }
  const t0 = Date.now();
  const server = await startServer({ demoDevices: DEVICES });
  console.log(`server with ${DEVICES.toLocaleString()} devices ready in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  const browser = await openBrowser();
  try {
    const { page } = browser;
    // Records when the first list rows are drawn, from navigation start (performance.now() is relative to it).
    await page.addInitScript(() => {
      const w = window as unknown as { __rowsAt?: number };
      new MutationObserver((_m, obs) => {
        if (document.querySelector('[data-testid="model-list"] tbody tr')) {
          w.__rowsAt = performance.now();
          obs.disconnect();
        }
      }).observe(document, { childList: true, subtree: true });
    });
    await signIn(page, server);
    const paints: number[] = [];
    const fcps: number[] = [];
    const apiFirst: number[] = [];
    const changes: number[] = [];
    const apiChange: number[] = [];
    let scripts: string[] = [];
    for (let run = 0; run < RUNS; run++) {
      await page.goto(`${server.url}/objects/dcim.device`);
      await page.waitForFunction(() => (window as unknown as { __rowsAt?: number }).__rowsAt !== undefined, null, { timeout: 120_000 });
      paints.push(await page.evaluate(() => (window as unknown as { __rowsAt: number }).__rowsAt));
      fcps.push(await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN));
      if (run === 0) scripts = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.endsWith('.js')));
      apiFirst.push(await page.evaluate(async () => {
        const s = performance.now();
        await (await fetch('/api/devices/?limit=50')).json();
        return performance.now() - s;
      }));
      // Page change: click Next, wait until the range reads 51–100.
      changes.push(await page.evaluate(PAGE_CHANGE_SCRIPT));
      apiChange.push(await page.evaluate(async () => {
        const s = performance.now();
        await (await fetch('/api/devices/?limit=50&offset=100')).json();
        return performance.now() - s;
      }));
    }
    const gz = scripts.reduce((sum, url) => sum + gzipSync(readFileSync(join(server.webDir, new URL(url).pathname))).length, 0);
    const budget = JSON.parse(readFileSync(join(server.webDir, 'first-page-size.json'), 'utf8')) as { gzip_bytes: number };
    console.log(`device list, ${DEVICES.toLocaleString()} devices, median of ${RUNS} (load average ${loadavg()[0]!.toFixed(2)}):`);
    console.log(`  first meaningful paint (rows drawn) ${ms(median(paints))}  first contentful paint ${ms(median(fcps))}  bare API call ${ms(median(apiFirst))}  ratio ${(median(paints) / median(apiFirst)).toFixed(1)}x`);
    console.log(`  page change (click Next → rows drawn) ${ms(median(changes))}  bare API call ${ms(median(apiChange))}  ratio ${(median(changes) / median(apiChange)).toFixed(1)}x`);
    console.log(`  JavaScript loaded for the first page: ${scripts.length} files, ${(gz / 1024).toFixed(1)} kB gzipped (entry alone ${(budget.gzip_bytes / 1024).toFixed(1)} kB; budget 500 kB)`);
  } finally {
    // A failed close (the browser already gone) must not hide the error that ended the try.
    await browser.close().catch((err: unknown) => console.error(`closing the browser: ${err instanceof Error ? err.message : String(err)}`));
    await server.stop();
  }
}
