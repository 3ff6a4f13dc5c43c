/**
 * The OAuth clients API's request and record shapes (spec, Authentication 5-8): a client is created with a name,
 * an expiry date or "never expire" (with `confirmNeverExpireRisk: true`), and optionally as a single-page-app
 * client for all domains (`allowedOrigins: "ALL"`) or a list of web origins (with `confirmExposureRisk: true`).
 */
import { z } from "zod";

/** Most web origins one single-page-app client may list. */
export const MAX_ORIGINS = 20;

/** True for a web origin as browsers send it: `http(s)://host[:port]`, nothing after (no path, query or slash). */
export function isWebOrigin(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === "https:" || u.protocol === "http:") && u.origin === s;
  } catch {
    return false;
  }
}

const origin = z
  .string()
  .max(300)
  .refine(isWebOrigin, "a web origin 'https://host[:port]' without path or trailing slash");

export const createClientSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(100),
    expires: z.iso.datetime({ offset: true }).optional(),
    neverExpire: z.boolean().optional(),
    confirmNeverExpireRisk: z.boolean().optional(),
    singlePageApp: z
      .strictObject({
        allowedOrigins: z.union([z.literal("ALL"), z.array(origin).min(1).max(MAX_ORIGINS)]),
        confirmExposureRisk: z.boolean().optional(),
      })
      .optional(),
  })
  .superRefine((b, ctx) => {
    const issue = (path: string, message: string): void => void ctx.addIssue({ code: "custom", path: [path], message });
    if ((b.expires === undefined) === (b.neverExpire !== true))
      issue("expires", "give either an expiry date-time 'expires' or 'neverExpire': true");
    if (b.neverExpire === true && b.confirmNeverExpireRisk !== true)
      issue(
        "confirmNeverExpireRisk",
        "a client that never expires stays usable if its secret leaks: confirm with 'confirmNeverExpireRisk': true",
      );
    if (b.expires !== undefined && !(Date.parse(b.expires) > Date.now()))
      issue("expires", "the expiry date must be in the future");
    if (b.singlePageApp && b.singlePageApp.confirmExposureRisk !== true)
      issue(
        "singlePageApp.confirmExposureRisk",
        "a single-page-app client's secret is visible to every user of the page: confirm with 'confirmExposureRisk': true",
      );
  });

export type CreateClientBody = z.infer<typeof createClientSchema>;

/** A client as the API shows it (never its secret). `expires` null: never expires. */
export interface ClientRecord {
  clientId: string;
  name: string;
  created: string;
  expires: string | null;
  singlePageApp: { allowedOrigins: "ALL" | string[] } | null;
  status: "ACTIVE" | "EXPIRED" | "DELETED";
  deleted: string | null;
}
