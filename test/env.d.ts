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
      PY_S3_CLIENTS: Fetcher;
      S3_BRIDGE: Fetcher;
      /** The archive twin's address (scripts/archive-twin.mjs): its objects, STAC APIs and /_twin/ hooks. */
      ARCHIVE_TWIN_URL: string;
      /** The twin's test keys (TWIN_AWS_KEYS), the requester-pays secrets of the tests' Worker. */
      AWS_ACCESS_KEY_ID: string;
      AWS_SECRET_ACCESS_KEY: string;
    }
  }
}
