// The Worker versions `npm run deploy` keeps track of (scripts/deploy.mjs): the one serving before a deploy (read
// through the API, GET /accounts/{id}/workers/scripts/{name}/deployments, as wrangler's own rollback reads it) and
// the rollback to it when the new version fails its smoke test (`wrangler rollback <version> --yes`).
import { CloudflareApiError } from "./cloudflare-api.mjs";

/**
 * The version serving (the largest share of) Worker `name`'s traffic in its latest deployment, or undefined when
 * the Worker does not exist yet (API 404 / code 10007).
 */
export async function liveVersion(api, accountId, name) {
  try {
    const { deployments } = await api.call(
      "GET",
      `/accounts/${accountId}/workers/scripts/${encodeURIComponent(name)}/deployments`,
    );
    const latest = deployments?.at(0);
    return latest ? [...latest.versions].sort((a, b) => b.percentage - a.percentage)[0]?.version_id : undefined;
  } catch (e) {
    if (e instanceof CloudflareApiError && (e.status === 404 || e.codes.includes(10007))) return undefined;
    throw e;
  }
}

/**
 * Deploys `version` of Worker `name` to 100% of its traffic again (`wrangler rollback`, non-interactive: `--yes`,
 * the reason as its message, at most 120 characters). Bound resources (D1, R2, Durable Objects) are not rolled back.
 */
export async function rollback(w, configPath, name, version, reason) {
  await w.must(["rollback", version, "--name", name, "--message", reason.slice(0, 120), "--yes", "-c", configPath]);
}
