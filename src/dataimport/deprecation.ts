/**
 * The area's deprecation, told by the API (interface spec "Versioning": the third-party import is deprecated; its
 * first provider, Planet, is sunset on 2026-11-11, replaced by the provider's own APIs and, for tiles, the BYOC API):
 * - every response carries `Deprecation` (RFC 9745: a structured-field date, `@<unix seconds>`) and a `Link` with
 *   rel="deprecation" to the area's documentation;
 * - responses about a provider whose sunset is set carry `Sunset` (RFC 8594, an HTTP-date) and a `Link` with
 *   rel="successor-version" to its replacement;
 * - after the sunset, new work for that provider (search, thumbnails, new orders and subscriptions, confirmations)
 *   answers 410 Gone naming the replacement, unless the operator sets `DATAIMPORT_AFTER_SUNSET = "serve"`
 *   (wrangler.toml; default "gone", see README "Third-party import"). Reading existing records keeps working.
 */
import type { Env } from "../env";
import { ApiError } from "../http/errors";
import { OPENAPI_PATH, OPENAPI_TYPE } from "../openapi/paths";

/** The `Deprecation` date (unix seconds): the spec gives none, so one year before the first provider's sunset. */
export const DEPRECATED_SINCE = Date.UTC(2025, 10, 11) / 1000;
/** Where the deprecated operations are described: the deployment's OpenAPI document (relative to the request). */
export const DEPRECATION_DOC = OPENAPI_PATH;

interface Sunset {
  /** Epoch ms of the sunset. */
  at: number;
  /** What replaces the provider's import: its own APIs. */
  successor: string;
}

/** Providers with a sunset (spec "Versioning": the first provider, 2026-11-11). */
export const SUNSETS: Readonly<Record<string, Sunset>> = {
  PLANET: { at: Date.UTC(2026, 10, 11), successor: "https://docs.planet.com/develop/apis/" },
};

/** The headers every response of the area carries. */
export const DEPRECATION_HEADERS: Readonly<Record<string, string>> = {
  deprecation: `@${DEPRECATED_SINCE}`,
  link: `<${DEPRECATION_DOC}>; rel="deprecation"; type="${OPENAPI_TYPE}"`,
};

/** The headers of a response about `provider`: DEPRECATION_HEADERS, plus Sunset and the successor link when it has a sunset. */
export function providerHeaders(provider: string | undefined): Record<string, string> {
  const s = provider ? SUNSETS[provider] : undefined;
  if (!s) return { ...DEPRECATION_HEADERS };
  return {
    deprecation: DEPRECATION_HEADERS.deprecation!,
    sunset: new Date(s.at).toUTCString(),
    link: `${DEPRECATION_HEADERS.link}, <${s.successor}>; rel="successor-version"`,
  };
}

/**
 * Refuses new work for a provider past its sunset unless the operator keeps it (`DATAIMPORT_AFTER_SUNSET=serve`).
 * @throws ApiError 410 naming the replacement (errors.replacement), with the provider's headers.
 */
export function checkSunset(env: Pick<Env, "DATAIMPORT_AFTER_SUNSET">, provider: string, now = Date.now()): void {
  const s = SUNSETS[provider];
  if (!s || now < s.at || (env.DATAIMPORT_AFTER_SUNSET ?? "gone").trim().toLowerCase() === "serve") return;
  throw new ApiError(
    410,
    `Third-party import from ${provider} was sunset on ${new Date(s.at).toUTCString()}. Use the provider's own APIs (${s.successor}) and import the data with the BYOC API.`,
    { replacement: s.successor },
    "COMMON_GONE",
    providerHeaders(provider),
  );
}
