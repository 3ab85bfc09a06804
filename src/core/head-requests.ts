// HEAD answered by the GET route of its path, with the GET's status and headers and no body (RFC 9110 9.3.2), as
// NetBox (Django) answers it. Fastify's own way (exposeHeadRoutes) registers a second route for each of the app's
// 762 GET routes: a quarter of the router's routes, about 0.1 CPU-s of every app build (server start, CLI command,
// test file). Here the request is routed as a GET instead: Node decided when the request arrived that a HEAD's
// answer carries no body (its ServerResponse, and light-my-request's for `inject`, drop what the handler sends), so
// the GET route answers it whole and only its status and headers leave.
import type { IncomingMessage } from 'node:http';

const headRequests = new WeakSet<IncomingMessage>();

/** Fastify's `rewriteUrl`: routes a HEAD request as the GET of the same URL. */
export function routeHeadAsGet(req: IncomingMessage): string {
  if (req.method === 'HEAD') {
    headRequests.add(req);
    req.method = 'GET';
  }
  return req.url ?? '/';
}

/** Whether the request came as a HEAD (its method now reads GET). */
export function arrivedAsHead(req: IncomingMessage): boolean {
  return headRequests.has(req);
}
