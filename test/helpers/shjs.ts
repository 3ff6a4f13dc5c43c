/**
 * Routes sentinelhub-js's axios requests to the worker under test (the real router, auth and handlers), so the
 * official JS client's own request building and response parsing run against EO Edge. Any host is accepted;
 * only the path is used. Binary responses are returned as ArrayBuffer (sentinelhub-js asks for 'arraybuffer'
 * outside browsers).
 */
import { addAxiosRequestInterceptor } from "@sentinel-hub/sentinelhub-js";
import { call } from "./auth";

interface AxiosLikeConfig {
  url: string;
  method?: string;
  headers?: Record<string, string> | { toJSON?: () => Record<string, string> };
  data?: string;
  responseType?: string;
  adapter?: unknown;
}

function workerAdapter(config: AxiosLikeConfig) {
  const h = config.headers as { toJSON?: () => Record<string, string> } & Record<string, string>;
  const headers = typeof h?.toJSON === "function" ? h.toJSON() : h;
  const url = new URL(config.url);
  return call(url.pathname + url.search, {
    method: (config.method ?? "get").toUpperCase(),
    headers,
    body: config.data,
  }).then(async (r) => {
    const binary = config.responseType === "arraybuffer" || config.responseType === "blob";
    const data = binary ? await r.arrayBuffer() : await r.text();
    if (!r.ok) throw new Error(`HTTP ${r.status}: ${binary ? new TextDecoder().decode(data as ArrayBuffer) : data}`); // axios settle()
    // axios's own transformResponse parses JSON text after the adapter, as with its http/xhr adapters
    return {
      data,
      status: r.status,
      statusText: r.statusText,
      headers: Object.fromEntries(r.headers),
      config,
      request: {},
    };
  });
}

/** Installs the adapter for every sentinelhub-js request of this test file. */
export function routeSentinelHubJsToWorker(): void {
  addAxiosRequestInterceptor(((config: AxiosLikeConfig) => ({ ...config, adapter: workerAdapter })) as never);
}
