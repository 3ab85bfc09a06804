// A JavaScript array as PostgreSQL's array literal text ({"a","b",NULL}), read by the server with a cast to the
// column's array type. What node-postgres does to an array parameter, done by the caller where it wants to choose
// when the work happens (a bulk load encodes its next chunk while the server writes the current one); the same
// text on either driver, as the parameter is plain text.

/** `{"…","…",NULL}`: every element quoted (backslash and double quote escaped), null and undefined as NULL. */
export function arrayLiteral(values: readonly unknown[]): string {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) parts[i] = element(values[i]);
  return `{${parts.join(',')}}`;
}

function element(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (Array.isArray(value)) return arrayLiteral(value);
  let text: string;
  if (typeof value === 'string') text = value;
  else if (value instanceof Date) text = value.toISOString();
  else if (Buffer.isBuffer(value)) return `"\\\\x${value.toString('hex')}"`;
  else if (typeof value === 'object') text = JSON.stringify(value);
  else text = String(value);
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
