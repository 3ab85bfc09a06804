// The one list envelope every list answers with, generic or hand-written: `{count, next, previous, results}`
// (NetBox's), so clients page every list the same way.
export interface ListEnvelope<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** A page of `count` rows: next/previous are this URL with limit and offset moved. */
export function pagedList<T>(pageUrl: URL, page: { count: number; limit: number; offset: number }, results: T[]): ListEnvelope<T> {
  const { count, limit, offset } = page;
  const link = (o: number) => {
    const u = new URL(pageUrl);
    u.searchParams.set('limit', String(limit));
    if (o > 0) u.searchParams.set('offset', String(o));
    else u.searchParams.delete('offset');
    return u.toString();
  };
  return {
    count,
    next: offset + limit < count ? link(offset + limit) : null,
    previous: offset > 0 ? link(Math.max(0, offset - limit)) : null,
    results,
  };
}

/** A list small enough to answer whole (the schedules, the backups): one page, no links. */
export function wholeList<T>(results: T[]): ListEnvelope<T> {
  return { count: results.length, next: null, previous: null, results };
}

/** The envelope's JSON schema around an item schema, for route declarations. */
export function listEnvelopeSchema(item: object): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      count: { type: 'integer' },
      next: { type: ['string', 'null'] },
      previous: { type: ['string', 'null'] },
      results: { type: 'array', items: item },
    },
    required: ['count', 'next', 'previous', 'results'],
  };
}
