/**
 * A scope of the archive twin of its own for one test file (scripts/archive-twin.mjs: `{url}/t/<name>/`, with stats,
 * faults, latency and SAS tokens apart from every other file running at the same time), and the Worker called with
 * the archive vars pointing at it (callWithEnv).
 */
import { env } from "cloudflare:workers";
import { callWithEnv } from "../helpers/auth";

/** The archives of the twin. */
export type TwinArchive = "earth-search" | "planetary-computer";

export interface TwinScope {
  /** The scope's root URL. */
  url: string;
  /** The archive vars of the Worker for `archive` (Earth Search: EO_EDGE_ARCHIVE=twin, as the tests' root vars). */
  vars(archive?: TwinArchive): Record<string, string>;
  /** A hook of the scope: GET without a body, POST with one. */
  hook(path: string, body?: unknown): Promise<Record<string, unknown>>;
  /** The Worker's answer to `path` with `init`, the scope's vars (plus `over`) and a bearer token. */
  call(path: string, init: RequestInit, bearer: string, over?: Record<string, unknown>): Promise<Response>;
}

/** A fresh scope of the twin. */
export async function twinScope(): Promise<TwinScope> {
  const url = `${env.ARCHIVE_TWIN_URL}/t/${crypto.randomUUID()}`;
  const d = (await (await fetch(`${url}/_twin/describe`)).json()) as {
    stacUrl: Record<TwinArchive, string>;
    urlMap: Record<string, string>;
  };
  const vars = (archive: TwinArchive = "earth-search") => ({
    EO_EDGE_ARCHIVE: archive === "earth-search" ? "twin" : archive,
    ARCHIVE_STAC_URL: d.stacUrl[archive],
    ARCHIVE_URL_MAP: JSON.stringify(d.urlMap),
  });
  const hook = (path: string, body?: unknown) =>
    fetch(`${url}/_twin/${path}`, body === undefined ? {} : { method: "POST", body: JSON.stringify(body) }).then(
      (r) => r.json() as Promise<Record<string, unknown>>,
    );
  const call = (path: string, init: RequestInit, bearer: string, over: Record<string, unknown> = {}) =>
    callWithEnv({ ...vars(), ...over } as never, path, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${bearer}` },
    });
  return { url, vars, hook, call };
}

/** A POST of JSON `body`. */
export const postJson = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});
