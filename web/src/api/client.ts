// The one way the UI talks to the server: same-origin fetch with the session cookie, the CSRF header on writes,
// JSON in and out, and errors turned into ApiError with the API's `{field: [message]}` body kept intact.

export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(ApiError.summarize(status, body));
  }

  /** `{field: [msg]}` entries (the API's 400 shape); `detail` stays out because it names no field. */
  get fieldErrors(): FieldErrors {
    const out: FieldErrors = {};
    for (const [key, value] of Object.entries(this.body)) {
      if (key === 'detail') continue;
      if (Array.isArray(value)) out[key] = value.map(String);
      else if (typeof value === 'string') out[key] = [value];
    }
    return out;
  }

  static summarize(status: number, body: Record<string, unknown>): string {
    if (typeof body.detail === 'string') return body.detail;
    const parts = Object.entries(body)
      .filter(([, v]) => Array.isArray(v) || typeof v === 'string')
      .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(' ') : String(v)}`);
    return parts.length ? parts.join('; ') : `The server answered ${status}.`;
  }
}

function csrfToken(): string | null {
  const m = /(?:^|; )cairn_csrf=([^;]+)/.exec(document.cookie);
  return m ? decodeURIComponent(m[1]!) : null;
}

export type Query = Record<string, string | number | boolean | undefined | null | Array<string | number>>;

export function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) for (const item of v) params.append(k, String(item));
    else params.append(k, String(v));
  }
  const s = params.toString();
  return s ? `${path}${path.includes('?') ? '&' : '?'}${s}` : path;
}

/** Sends one request; resolves with the parsed JSON (or null for 204), rejects with ApiError. */
export async function api<T>(method: string, path: string, body?: unknown, init?: { signal?: AbortSignal }): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  // A FormData body (a file upload) sets its own multipart content type.
  const form = typeof FormData !== 'undefined' && body instanceof FormData;
  if (body !== undefined && !form) headers['content-type'] = 'application/json';
  if (method !== 'GET' && method !== 'HEAD') {
    const token = csrfToken();
    if (token) headers['x-csrf-token'] = token;
  }
  let res: Response;
  try {
    res = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : form ? (body as FormData) : JSON.stringify(body), signal: init?.signal });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, { detail: 'The server cannot be reached. Check the connection and try again.' });
  }
  if (res.status === 204) return null as T;
  const text = await res.text();
  let parsed: unknown = null;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = { detail: text.slice(0, 300) };
    }
  }
  if (!res.ok) {
    const errorBody = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { detail: `The server answered ${res.status}.` };
    if (res.status === 401) window.dispatchEvent(new CustomEvent('cairn:unauthorized'));
    throw new ApiError(res.status, errorBody);
  }
  return parsed as T;
}

export const get = <T>(path: string, query?: Query, init?: { signal?: AbortSignal }) => api<T>('GET', withQuery(path, query), undefined, init);
export const post = <T>(path: string, body?: unknown) => api<T>('POST', path, body ?? {});
export const patch = <T>(path: string, body: unknown) => api<T>('PATCH', path, body);
export const put = <T>(path: string, body: unknown) => api<T>('PUT', path, body);
export const del = <T>(path: string, body?: unknown) => api<T>('DELETE', path, body);
