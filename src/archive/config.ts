/**
 * The upstream archive's configuration as the archive readers use it: the operator's settings read from the
 * environment (src/storage/archives.ts: `EO_EDGE_ARCHIVE`, `ARCHIVE_STAC_URL`, `ARCHIVE_URL_MAP`,
 * `ARCHIVE_TIMEOUT_MS`, the AWS keys; docs/archives.md) with the retry policy of every upstream request, and the
 * asset URL map applied to hrefs.
 */
import { archiveSettings, type ArchiveEnv, type ArchiveSettings } from "../storage/archives";
import { DEFAULT_RETRY, type RetryPolicy } from "./fetch";

/** A resolved archive configuration. */
export interface ArchiveConfig extends Omit<ArchiveSettings, "timeoutMs"> {
  /** Retry policy of every upstream request (./fetch.ts; ARCHIVE_TIMEOUT_MS sets its per-attempt timeout). */
  retry: RetryPolicy;
}

/** `href` with the longest matching prefix of `map` (sorted longest first) replaced; unchanged when none matches. */
export function mapUrl(href: string, map: readonly [string, string][]): string {
  for (const [from, to] of map) if (href.startsWith(from)) return to + href.slice(from.length);
  return href;
}

/** Configurations per settings object (settings are memoized by their values, so this follows them). */
const memo = new WeakMap<ArchiveSettings, ArchiveConfig>();

/**
 * The archive of `env`, or null when EO_EDGE_ARCHIVE is unset or empty (memoized per isolate by the values).
 * @throws Error (the operator's configuration: a logged 500) for an unknown EO_EDGE_ARCHIVE or a malformed ARCHIVE_URL_MAP.
 */
export function archiveConfig(env: ArchiveEnv): ArchiveConfig | null {
  const settings = archiveSettings(env);
  if (!settings) return null;
  let config = memo.get(settings);
  if (!config) {
    const { timeoutMs, ...rest } = settings;
    config = { ...rest, retry: { ...DEFAULT_RETRY, ...(timeoutMs !== null ? { timeoutMs } : {}) } };
    memo.set(settings, config);
  }
  return config;
}
