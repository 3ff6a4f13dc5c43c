/**
 * Calls to a provider's HTTP API and the mapping of its failures to the error envelope: 401/403 (the key was
 * refused) -> 403, 400/404/422 -> the same status with the provider's own message, 429 and 5xx or no answer -> 503
 * (try again later). The user's key is never part of a message.
 */
import { ApiError } from "../../http/errors";

/** The provider's message in a JSON error body (Planet: `message` or `general[].message`; others: `message`/`error`). */
async function providerMessage(r: Response): Promise<string> {
  const text = (await r.text()).slice(0, 2000);
  try {
    const b = JSON.parse(text) as {
      message?: unknown;
      general?: { message?: unknown }[];
      error?: unknown;
      field?: Record<string, { message?: unknown }[]>;
    };
    const field = b.field
      ? Object.entries(b.field).map(([k, v]) => `${k}: ${v.map((x) => String(x.message)).join("; ")}`)
      : [];
    const parts = [b.message, ...(b.general ?? []).map((g) => g.message), b.error, ...field].filter(
      (x) => typeof x === "string" && x,
    );
    return parts.length ? parts.join(" ") : text;
  } catch {
    return text;
  }
}

/**
 * fetch() of a provider call; answers the response when it is 2xx.
 * @throws ApiError as described in the module comment, naming `provider` and `what` the call was for.
 */
export async function providerFetch(provider: string, what: string, url: string, init: RequestInit): Promise<Response> {
  let r: Response;
  try {
    r = await fetch(url, init);
  } catch (e) {
    throw new ApiError(
      503,
      `${provider} could not be reached for ${what}: ${String((e as Error).message).slice(0, 200)}. Try again later.`,
    );
  }
  if (r.ok) return r;
  const message = (await providerMessage(r)).slice(0, 500);
  if (r.status === 401 || r.status === 403)
    throw new ApiError(403, `${provider} refused the API key for ${what}: ${message}`);
  if (r.status === 400 || r.status === 404 || r.status === 422)
    throw new ApiError(r.status === 422 ? 400 : r.status, `${provider} refused ${what}: ${message}`);
  const retry = r.headers.get("retry-after");
  throw new ApiError(
    503,
    `${provider} answered ${r.status} for ${what}: ${message}. Try again later.`,
    {},
    undefined,
    retry ? { "retry-after": retry } : {},
  );
}
