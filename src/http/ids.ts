/**
 * Ids in paths and bodies. Every record id EO Edge makes is a UUID (crypto.randomUUID, version 4), so an id that is
 * not one names no record: routes answer it as not found (or a body member as a 400) without a database read.
 */
import { z } from "zod";

const UUID = z.uuid();

/** Whether `s` is a UUID in RFC 9562 form (either case; zod's `z.uuid()`). */
export const isUuid = (s: string): boolean => UUID.safeParse(s).success;
