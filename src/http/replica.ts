/**
 * D1 read replication for routes that only read (RouteMeta `replicaReads`, the catalog's): the handler's `env.DB` is
 * a D1 session (Sessions API, `withSession`) whose queries may be served by a read replica near the Worker. A client
 * that sends back the `x-d1-bookmark` of an earlier answer reads a database at least as recent as that answer
 * (sequential consistency, as Cloudflare's read-replication guide does it); without one the session starts
 * "first-unconstrained" (any replica). Every answer carries the session's bookmark. Locally, and on a database
 * without replication enabled, every query goes to the primary and the bookmarks still flow.
 */
import type { Env } from "../env";
import { withHeaders } from "./base";

/** The header a bookmark travels in, both ways (Cloudflare's D1 read-replication guide). */
export const BOOKMARK_HEADER = "x-d1-bookmark";

/**
 * What a client's bookmark may look like (D1 bookmarks are dash-separated hex fields): anything else is ignored,
 * so a malformed header starts an unconstrained session instead of failing the request.
 */
const BOOKMARK = /^[0-9a-f]{1,32}(?:-[0-9a-f]{1,32}){0,7}$/i;

/**
 * Runs `handler` with `env.DB` replaced by a read session continuing the request's bookmark, and answers with the
 * session's bookmark in {@link BOOKMARK_HEADER}.
 */
export async function withReadSession(
  request: Request,
  env: Env,
  handler: (env: Env) => Promise<Response>,
): Promise<Response> {
  const asked = request.headers.get(BOOKMARK_HEADER);
  const session = env.DB.withSession(asked !== null && BOOKMARK.test(asked) ? asked : "first-unconstrained");
  // a session has the D1Database methods the handlers use (prepare, batch)
  const response = await handler({ ...env, DB: session as unknown as D1Database });
  const bookmark = session.getBookmark();
  return bookmark ? withHeaders(response, { [BOOKMARK_HEADER]: bookmark }) : response;
}
