import pg from 'pg';
const flag = { on: false };
const orig = pg.Client.prototype.query;
(pg.Client.prototype as any).query = function (this: unknown, ...args: any[]) {
  if (flag.on) { const t = typeof args[0] === 'string' ? args[0] : args[0]?.text; console.log('---- ' + String(t).replace(/\s+/g, ' ').slice(0, Number(process.env.W ?? 400))); if (process.env.STACK && String(t).includes(process.env.STACK)) console.log(new Error().stack); }
  return (orig as any).apply(this, args);
};
const { buildApp } = await import('../src/app.ts');
const { createToken, createUser } = await import('../src/core/accounts.ts');
const { generateDemoData } = await import('../src/system/demo-data.ts');
const { openBenchDatabase } = await import('./helpers.ts');
const database = await openBenchDatabase();
const app = await buildApp({ database });
const demo = await generateDemoData(database.db, { devices: 60, seed: 7, tenantSlug: 'p' });
await createUser(database.db, { username: 'p', password: 'load-bench-password', isSuperuser: true, tenantIds: [demo.tenantId] });
const token = await createToken(database.db, { username: 'p', tenantSlug: 'p' });
const headers = { authorization: `Token ${token}` };
const get = async (url: string) => (await app.inject({ method: 'GET', url, headers })).json();
const sample = get('/api/devices/?limit=1&offset=7');
const s = (await sample).results[0];
for (const path of process.argv.slice(2)) {
  const p = path.replace(':id', s.id);
  await get(p);
  console.log(`==== ${p}`); flag.on = true; await get(p); flag.on = false;
}
await app.close(); await database.close();
