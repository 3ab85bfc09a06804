// Where `cairn serve` writes its log: JSON lines for log collectors (not a terminal, or CAIRN_LOG_FORMAT=json),
// short readable lines on a terminal, where a JSON line per request buried the first-run sign-in message.
import pretty from 'pino-pretty';
import type { Config } from '../config.ts';

export interface LoggerOptions {
  level: string;
  stream?: NodeJS.WritableStream;
}

export function loggerOptions(config: Pick<Config, 'logLevel' | 'logFormat'>, destination: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout): LoggerOptions {
  if (config.logFormat === 'json') return { level: config.logLevel };
  return {
    level: config.logLevel,
    stream: pretty({
      destination,
      colorize: Boolean(destination.isTTY),
      translateTime: 'SYS:HH:MM:ss',
      // One line per request event; errors keep their details below the line.
      messageFormat: requestLine,
      ignore: 'pid,hostname,reqId,req,res,responseTime',
      // Synchronous, like the JSON logger: nothing is lost when the process exits right after a line.
      sync: true,
    }),
  };
}

/** The first-run sign-in details in a box, so they stand out of the log around them. */
export function signInBox(lines: string[]): string {
  const width = Math.max(...lines.map((l) => l.length));
  const bar = '─'.repeat(width + 2);
  return [`┌${bar}┐`, ...lines.map((l) => `│ ${l.padEnd(width)} │`), `└${bar}┘`].join('\n');
}

/** `GET /api/devices/ [0a5b6]` when a request comes in, `200 in 3 ms [0a5b6]` when it is answered. */
function requestLine(log: Record<string, unknown>, messageKey: string): string {
  const msg = String(log[messageKey] ?? '');
  const id = typeof log.reqId === 'string' ? ` [${log.reqId.slice(-5)}]` : '';
  const req = log.req as { method?: string; url?: string } | undefined;
  const res = log.res as { statusCode?: number } | undefined;
  if (msg === 'incoming request' && req?.method) return `${req.method} ${req.url}${id}`;
  if (msg === 'request completed' && res?.statusCode) return `${res.statusCode} in ${Math.round(Number(log.responseTime ?? 0))} ms${id}`;
  return `${msg}${id}`;
}

