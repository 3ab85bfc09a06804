// Names spliced into SQL text that parameters cannot carry (a schema, a trigger, an index).

/** An identifier quoted for PostgreSQL: in double quotes, its own double quotes doubled. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A string literal for PostgreSQL: in single quotes, its own single quotes doubled (standard_conforming_strings). */
export function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
