// PostgreSQL's LISTEN on a connection of its own: a process hears what another transaction announced with
// pg_notify, once that transaction has committed (never for one that rolled back). A wake-up only: whoever listens
// must still find its work without one (a tick), since a notification sent while the connection was down is lost.
import pg from 'pg';

/** Stops listening and closes the connection. */
export type Unlisten = () => Promise<void>;

const CHANNEL = /^[a-z_][a-z0-9_]*$/;
/** After a lost connection (a restarted server, a failover), the next attempt to listen again. */
const RECONNECT_MS = 2_000;

export function checkChannel(channel: string): void {
  if (!CHANNEL.test(channel)) throw new Error(`Invalid notification channel "${channel}": lower-case letters, digits and underscores only.`);
}

/**
 * Listens on `channel` of the database at `url` until the returned function is called. A connection that cannot
 * be made, or is lost later, is tried again every RECONNECT_MS; none of it reaches the caller as an error.
 */
export async function listenPostgres(url: string, channel: string, onNotify: (payload: string) => void): Promise<Unlisten> {
  checkChannel(channel);
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  let closed = false;
  const again = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = null;
      void connect();
    }, RECONNECT_MS);
    retry.unref();
  };
  const connect = async () => {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    client = c;
    c.on('notification', (n) => {
      if (n.channel === channel) onNotify(n.payload ?? '');
    });
    // Lost connections arrive as 'error' (then 'end'); an unheard 'error' would end the process.
    c.on('error', () => {});
    c.on('end', () => {
      if (client !== c) return;
      client = null;
      again();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
      if (closed) await c.end();
    } catch {
      if (client === c) client = null;
      await c.end().catch(() => {});
      again();
    }
  };
  await connect();
  return async () => {
    closed = true;
    if (retry) clearTimeout(retry);
    retry = null;
    const c = client;
    client = null;
    await c?.end().catch(() => {});
  };
}
