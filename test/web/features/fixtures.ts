// What the feature browser tests share: the API row and page shapes they read, and one signed-in session (a real
// `cairn serve` and a browser context, signed in by its cookies: the sign-in form is test/web/ui.test.ts's) per
// file, opened in beforeAll and closed in afterAll, so a file pays for one server start however many tests it has.
// Each test opens its first page itself.
import { openBrowser, signInContext, startServer, type Browser, type ServerOptions, type WebServer } from '../helpers.ts';

export interface Row {
  id: string;
  name: string;
  [key: string]: unknown;
}

export interface Page<T> {
  count: number;
  results: T[];
}

export interface Session {
  server: WebServer;
  browser: Browser;
  close(): Promise<void>;
}

export interface SessionOptions extends ServerOptions {
  /** Lets the server reach stand-ins on 127.0.0.1 (CAIRN_SSRF_ALLOWLIST), restored on close. */
  allowLoopback?: boolean;
}

export async function openSession(opts: SessionOptions = {}): Promise<Session> {
  const allowlist = process.env.CAIRN_SSRF_ALLOWLIST;
  if (opts.allowLoopback) process.env.CAIRN_SSRF_ALLOWLIST = '127.0.0.1';
  const restore = () => {
    if (allowlist === undefined) delete process.env.CAIRN_SSRF_ALLOWLIST;
    else process.env.CAIRN_SSRF_ALLOWLIST = allowlist;
  };
  const server = await startServer(opts);
  const browser = await openBrowser();
  await signInContext(browser.context, server);
  return {
    server,
    browser,
    async close() {
      await browser.close();
      await server.stop();
      restore();
    },
  };
}
