import type { Env as AppEnv } from "../src/env";

declare global {
  namespace Cloudflare {
    interface Env extends AppEnv {
      TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
      SAMPLE_DATA: Fetcher;
      PY_DECODE: Fetcher;
      PY_S3: Fetcher;
      PY_ZARR: Fetcher;
      CLIENT_RELAY: Fetcher;
    }
  }
}
