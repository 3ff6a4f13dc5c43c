/**
 * Zarr Import API (Sentinel Hub OpenAPI tag zarr_collection / zarr_array; spec 4.8): `/api/v1/zarr/collections`
 * (alias `/zarr/v1/collections`): create (201 `{data}` CREATED, ingested right after the answer: INGESTING, then
 * INGESTED or FAILED; see ./ingest.ts), query (paged,
 * `search` by name), get, update name (204), delete (204), reingest (200 `{data}`), arrays query (paged, `search`
 * by array name) and get. Every collection is its account's: another account gets 404.
 */
import { z } from "zod";
import type { Env } from "../env";
import { badRequest, notFound } from "../http/errors";
import { matchesSearch, pagedList, parsePageRequest, parseSearch, seekArray } from "../http/paging";
import { readJson, validate } from "../http/parse";
import { accountOf, type Api, type AuthedRequest } from "../http/router";
import { resolveBucket } from "../buckets";
import { parseCrs } from "../raster/crs";
import { ingestLeased, leaseZarrIngestion, runZarrIngestion, unregisterZarr } from "./ingest";
import { arrayJson, deleteZarr, getZarr, insertZarr, listZarr, renameZarr, zarrJson, type ZarrRecord } from "./records";

const MAX_PAGE = 100;
/**
 * Longest `path` in UTF-8 bytes: object keys are at most 1024 bytes (R2, S3), and the group's keys add an array
 * name and a chunk key (`B04/18.1.1`) to it.
 */
const MAX_PATH_BYTES = 512;

const createSchema = z.object({
  name: z.string().min(1),
  s3Bucket: z.string().min(1),
  path: z
    .string()
    .regex(/^[^/].*\/$/, "path must end with '/' and not start with it")
    .refine(
      (p) => new TextEncoder().encode(p).length <= MAX_PATH_BYTES,
      `path must be at most ${MAX_PATH_BYTES} bytes (UTF-8)`,
    ),
  crs: z.string().min(1),
  envelope: z.unknown().optional(),
});
const renameSchema = z.object({ name: z.string().min(1) });

/** The caller's collection named by the path, or 404. */
async function owned(request: AuthedRequest, env: Env): Promise<ZarrRecord> {
  const id = decodeURIComponent(request.params.collectionId ?? "");
  const r = await getZarr(env, accountOf(request), id);
  if (!r) throw notFound(`Zarr collection '${id}' not found.`);
  return r;
}

/**
 * POST: 201 with the collection CREATED, its ingestion leased and run after the answer (GET shows INGESTING, then
 * INGESTED or FAILED); 403 when the bucket is another account's (nothing stored).
 */
async function create(request: AuthedRequest, env: Env, ctx: ExecutionContext): Promise<Response> {
  const body = validate(createSchema, await readJson(request));
  await resolveBucket(env, accountOf(request), { url: `s3://${body.s3Bucket}/${body.path}` });
  try {
    parseCrs(body.crs);
  } catch (e) {
    throw badRequest((e as Error).message);
  }
  const record = {
    id: crypto.randomUUID(),
    account: accountOf(request),
    name: body.name,
    s3Bucket: body.s3Bucket,
    path: body.path,
    crs: body.crs,
    created: new Date().toISOString(),
  };
  await insertZarr(env, record);
  const created = (await getZarr(env, record.account, record.id))!;
  await leaseZarrIngestion(env, created);
  // a storage fault leaves the unit to its watchdog (./ingest.ts)
  ctx.waitUntil(
    ingestLeased(env, created).catch((e: unknown) =>
      console.error("zarr ingestion after create:", String(e).slice(0, 300)),
    ),
  );
  return Response.json({ data: zarrJson(created) }, { status: 201 });
}

/** A paged, optionally `search`-filtered (parseSearch, on `name`) list of `rows` sorted by `key`. */
function listing<T>(
  request: AuthedRequest,
  rows: T[],
  name: (t: T) => string,
  key: (t: T) => (string | number)[],
  render: (t: T) => unknown,
): Response {
  const url = new URL(request.url);
  const page = parsePageRequest(url, MAX_PAGE);
  const search = parseSearch(url);
  const matching = rows.filter((r) => matchesSearch(name(r), search));
  const { data, links } = pagedList(url, page, seekArray(matching, page, key), key);
  return Response.json({ data: data.map(render), links });
}

async function query(request: AuthedRequest, env: Env): Promise<Response> {
  const rows = await listZarr(env, accountOf(request));
  return listing(
    request,
    rows,
    (r) => r.name,
    (r) => [r.created, r.id],
    zarrJson,
  );
}

async function get(request: AuthedRequest, env: Env): Promise<Response> {
  return Response.json({ data: zarrJson(await owned(request, env)) });
}

async function rename(request: AuthedRequest, env: Env): Promise<Response> {
  const r = await owned(request, env);
  const { name } = validate(renameSchema, await readJson(request));
  await renameZarr(env, r.account, r.id, name);
  return new Response(null, { status: 204 });
}

async function remove(request: AuthedRequest, env: Env): Promise<Response> {
  const r = await owned(request, env);
  await unregisterZarr(env, r.id);
  await deleteZarr(env, r.id);
  return new Response(null, { status: 204 });
}

/** PUT reingest: ingests now and answers the updated record; 400 while another ingestion of it is under way. */
async function reingest(request: AuthedRequest, env: Env): Promise<Response> {
  const r = await owned(request, env);
  if (!(await runZarrIngestion(env, r)))
    throw badRequest(`Zarr collection '${r.id}' is being ingested; reingest it once it is INGESTED or FAILED.`);
  return Response.json({ data: zarrJson((await getZarr(env, r.account, r.id))!) });
}

async function arrays(request: AuthedRequest, env: Env): Promise<Response> {
  const r = await owned(request, env);
  return listing(
    request,
    r.arrays,
    (a) => a.name,
    (a) => [a.name],
    (a) => arrayJson(r, a),
  );
}

async function array(request: AuthedRequest, env: Env): Promise<Response> {
  const r = await owned(request, env);
  const name = decodeURIComponent(request.params.arrayName ?? "");
  const a = r.arrays.find((x) => x.name === name);
  if (!a) throw notFound(`Zarr collection '${r.id}' has no array '${name}'.`);
  return Response.json({ data: arrayJson(r, a) });
}

/** Registers the Zarr collection routes under both roots. */
export function registerZarr(api: Api): void {
  const tag = { tags: ["Zarr"] };
  for (const root of ["/api/v1/zarr/collections", "/zarr/v1/collections"]) {
    api
      .on("POST", root, create, { ...tag, summary: "Register a Zarr collection", body: createSchema, status: 201 })
      .on("GET", root, query, { ...tag, summary: "List Zarr collections" })
      .on("GET", `${root}/:collectionId`, get, { ...tag, summary: "One Zarr collection" })
      .on("PUT", `${root}/:collectionId`, rename, { ...tag, summary: "Rename a Zarr collection", body: renameSchema })
      .on("DELETE", `${root}/:collectionId`, remove, { ...tag, summary: "Delete a Zarr collection", status: 204 })
      .on("PUT", `${root}/:collectionId/reingest`, reingest, { ...tag, summary: "Re-read the Zarr store's metadata" })
      .on("GET", `${root}/:collectionId/arrays`, arrays, { ...tag, summary: "Arrays of a Zarr collection" })
      .on("GET", `${root}/:collectionId/arrays/:arrayName`, array, { ...tag, summary: "One array" });
  }
}
