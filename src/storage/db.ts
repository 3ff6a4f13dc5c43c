/** Drizzle over the D1 binding. */
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import type { Env } from "../env";
import * as schema from "./schema";

/** A drizzle database over `env.DB`. */
export function db(env: Pick<Env, "DB">): DrizzleD1Database<typeof schema> {
  return drizzle(env.DB, { schema });
}

/** A JSON text column's value: null stays null, anything else is parsed (the caller names its shape `T`). @throws SyntaxError for text that is not JSON. */
export const jsonColumn = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));
