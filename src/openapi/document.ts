/**
 * The OpenAPI 3.1 description of EO Edge, generated per request from the router's route table (src/http/router.ts):
 * every registered route is a path + operation; the metadata given to `Api.on` (src/*\/routes.ts) adds the summary
 * (./descriptions.ts gives its description), tags, security and the zod request schemas the handlers validate with.
 * A route without metadata still appears, with a generic operation. Spec: https://spec.openapis.org/oas/v3.1.0.
 */
import type { ZodType } from "zod";
import type { Method, RouteDef } from "../http/router";
import { TOKEN_PATH } from "../auth/routes";
import { S3_PATH } from "../s3";
import { DESCRIPTIONS } from "./descriptions";
import { jsonSchemaOf, queryParameters, type JsonSchema } from "./schemas";

/** `/a/:id/b` and `/a/:key+` (itty) -> `/a/{id}/b`, `/a/{key}` (OpenAPI path template). */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)\+?/g, "{$1}");

/** Names of the path parameters of an itty path, in order. */
const pathParams = (path: string): string[] => [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);

/** A stable operationId: method + path words, e.g. `get_api_v1_batch_process_taskId`. */
const operationId = (method: Method, path: string): string =>
  `${method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+/g, "_").replace(/_$/, "")}`;

/** Tag of a route without one: its API area, from the first path words (e.g. `api/v1/batch` -> `batch`). */
const defaultTag = (path: string): string => {
  const words = path.split("/").filter((w) => w && !w.startsWith(":"));
  return (words[0] === "api" ? words[2] : words[0]) ?? "root";
};

const ERROR_REF = { $ref: "#/components/schemas/Error" };
const SECURED = [{ OAuth2: [] }, { BearerJWT: [] }];

/** The error envelope of src/http/errors.ts (`{error:{status,reason,message,code,errors}}`). */
const ERROR_SCHEMA: JsonSchema = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["status", "reason", "message"],
      properties: {
        status: { type: "integer" },
        reason: { type: "string" },
        message: { type: "string" },
        code: { type: "string" },
        errors: {
          type: "object",
          description:
            'Additional information about the error: named facts, or one member per invalid field ({"<dotted path>": "<what is wrong>"}); {} when there is none.',
        },
      },
    },
  },
};

/** Components: one schema per request-body zod schema (shared between aliases), the error envelope. */
class Schemas {
  readonly components: Record<string, JsonSchema> = { Error: ERROR_SCHEMA };
  private readonly names = new Map<ZodType, string>();

  /** A `$ref` to the component of `schema`, created on first use under `name`. */
  ref(schema: ZodType, name: string): JsonSchema {
    let n = this.names.get(schema);
    if (!n) {
      n = name;
      this.names.set(schema, n);
      this.components[n] = jsonSchemaOf(schema, n);
    }
    return { $ref: `#/components/schemas/${n}` };
  }
}

/** The description of a route: its RouteMeta.description, else the table's for its summary (./descriptions.ts). */
const describe = (meta: RouteDef["meta"]): string | undefined =>
  meta.description ?? (meta.summary ? DESCRIPTIONS[meta.summary] : undefined);

/** The OpenAPI Operation Object of one route. */
function operation(route: RouteDef, schemas: Schemas): JsonSchema {
  const { meta, method, path } = route;
  const id = operationId(method, path);
  const status = meta.status ?? 200;
  const ok = meta.responseType
    ? { description: meta.response ?? "OK", content: { [meta.responseType]: {} } }
    : { description: meta.response ?? "OK" };
  const params = [
    ...pathParams(path).map((name) => ({ name, in: "path", required: true, schema: { type: "string" } })),
    ...(meta.query ? queryParameters(meta.query, `${id}_query`) : []),
  ];
  return {
    operationId: id,
    summary: meta.summary ?? `${method} ${path}`,
    ...(describe(meta) ? { description: describe(meta) } : {}),
    tags: meta.tags ?? [defaultTag(path)],
    ...(params.length ? { parameters: params } : {}),
    ...(meta.body
      ? {
          requestBody: {
            required: true,
            content: Object.fromEntries(
              (meta.bodyTypes ?? ["application/json"]).map((t) => [
                t,
                { schema: schemas.ref(meta.body!, `${id}_body`) },
              ]),
            ),
          },
        }
      : {}),
    security: meta.securityScheme ? [{ [meta.securityScheme]: [] }] : route.isPublic ? [] : SECURED,
    responses: {
      [String(status)]: ok,
      "4XX": {
        description: "Invalid request, missing token, rate limited, not found (error envelope)",
        content: { "application/json": { schema: ERROR_REF } },
      },
    },
  };
}

/**
 * The whole document for the deployment at `base` (PUBLIC_BASE_URL, no trailing slash), paths in registration order.
 * Several routes on one path become the operations of one Path Item.
 */
export function openApiDocument(routes: readonly RouteDef[], base: string): JsonSchema {
  const schemas = new Schemas();
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const r of routes) (paths[openApiPath(r.path)] ??= {})[r.method.toLowerCase()] = operation(r, schemas);
  return {
    openapi: "3.1.0",
    info: {
      title: "EO Edge API",
      version: "1.0.0",
      description:
        "Sentinel Hub-style Earth-observation API: Processing (evalscripts), STAC catalog, Statistical, Async, Batch, " +
        "Statistical Batch, BYOC, Zarr, OGC WMS/WMTS, accounts and OAuth clients. Get a token with the OAuth2 client " +
        `credentials flow at ${TOKEN_PATH} and send it as \`Authorization: Bearer <token>\`.\n\n` +
        `An S3-compatible endpoint (path-style buckets, AWS Signature V4, S3 XML errors) is served under \`${S3_PATH}\`: ` +
        `use \`${base}${S3_PATH}\` as the \`--endpoint-url\` of the AWS CLI or boto3 (ListBuckets, ListObjectsV2, ` +
        "GetObject with Range, PutObject, DeleteObject, multipart uploads). It is not described operation by operation here.",
    },
    servers: [{ url: base }],
    tags: [
      ...new Set(Object.values(paths).flatMap((ops) => Object.values(ops).flatMap((o) => o.tags as string[]))),
    ].map((name) => ({ name })),
    paths,
    components: {
      schemas: schemas.components,
      securitySchemes: {
        OAuth2: { type: "oauth2", flows: { clientCredentials: { tokenUrl: `${base}${TOKEN_PATH}`, scopes: {} } } },
        BearerJWT: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
        AdminToken: {
          type: "http",
          scheme: "bearer",
          description: "The deployment's ADMIN_TOKEN secret (the admin API, /api/v1/admin/...).",
        },
      },
    },
  };
}
