/**
 * zod -> JSON Schema for the OpenAPI document: zod 4's `z.toJSONSchema` emits draft 2020-12, the dialect of
 * OpenAPI 3.1 Schema Objects (OAS 3.1 section 4.8.24), so the schemas the routes validate with are embedded as they are.
 */
import { z, type ZodType } from "zod";

export type JsonSchema = Record<string, unknown>;

/**
 * The input-side JSON Schema of `schema` (what a client sends: defaulted fields optional, transforms' input types),
 * without `$schema` (the document's dialect applies). Checks zod cannot express (refinements, `z.custom`) are left
 * out (they only narrow what the schema accepts) and their validation stays in the handler.
 * Internal `$ref`s of recursive schemas point into the schema's own `$defs`; `$id` makes them resolve there.
 */
export function jsonSchemaOf(schema: ZodType, id: string): JsonSchema {
  const out = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "any" }) as JsonSchema;
  delete out.$schema;
  return out.$defs ? { $id: `urn:eo-edge:schema:${id}`, ...out } : out;
}

/** One OpenAPI Parameter Object per property of a query schema (a zod object), `required` as in the schema. */
export function queryParameters(schema: ZodType, id: string): JsonSchema[] {
  const s = jsonSchemaOf(schema, id);
  const props = (s.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((s.required ?? []) as string[]);
  return Object.entries(props).map(([name, p]) => ({
    name,
    in: "query",
    required: required.has(name),
    ...(typeof p.description === "string" ? { description: p.description } : {}),
    schema: p,
  }));
}
