// Names spliced into SQL text that parameters cannot carry (a schema, a trigger, an index).

/** An identifier quoted for PostgreSQL: in double quotes, its own double quotes doubled. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
