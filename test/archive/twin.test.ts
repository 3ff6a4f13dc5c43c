/**
 * The archive twin itself (scripts/archive-twin.mjs, started by vitest.config.ts at ARCHIVE_TWIN_URL): objects under
 * their real bucket keys answered as S3 answers (ranges, HEAD, 416, 404, requester-pays SigV4 checked with an
 * independent signer, aws4fetch), the Planetary Computer's SAS tokens, the two STAC APIs (filters, paging as
 * stac-server and pgstac page) and the test hooks (stats, faults). Bytes are compared with the files of data/.
 * The tests use a scope of their own (`/t/<name>/`: its own stats and faults), as other test files share the twin.
 */
import { env } from "cloudflare:workers";
import { AwsClient } from "aws4fetch";
import { beforeEach, describe, expect, it } from "vitest";

const TWIN = `${env.ARCHIVE_TWIN_URL}/t/twin-test-${crypto.randomUUID().slice(0, 8)}`;
const ES = `${TWIN}/earth-search/v1`;
const PC = `${TWIN}/planetary-computer/api/stac/v1`;
const RKH = "sentinel-s2-l2a-cogs/29/R/KH/2020/2/S2A_29RKH_20200219_0_L2A";
const B04 = `${TWIN}/objects/sentinel-cogs/${RKH}/B04.tif`;

/** A file of data/ through the SAMPLE_DATA service. */
async function sample(path: string): Promise<Uint8Array> {
  const r = await env.SAMPLE_DATA.fetch(`http://sample/${path}`);
  expect(r.status).toBe(200);
  return new Uint8Array(await r.arrayBuffer());
}

const hook = (path: string, body?: unknown) =>
  fetch(`${TWIN}/_twin/${path}`, body === undefined ? {} : { method: "POST", body: JSON.stringify(body) }).then(
    (r) => r.json() as Promise<Record<string, unknown>>,
  );

beforeEach(async () => {
  await hook("reset", {});
});

describe("objects", () => {
  it("serves byte ranges of the real sentinel-cogs object, as S3 does", async () => {
    const file = await sample("sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/B04.tif");
    const r = await fetch(B04, { headers: { range: "bytes=100-1099" } });
    expect(r.status).toBe(206);
    expect(r.headers.get("content-range")).toBe(`bytes 100-1099/${file.length}`);
    expect(r.headers.get("accept-ranges")).toBe("bytes");
    expect(new Uint8Array(await r.arrayBuffer())).toEqual(file.slice(100, 1100));
    const suffix = await fetch(B04, { headers: { range: "bytes=-10" } });
    expect(new Uint8Array(await suffix.arrayBuffer())).toEqual(file.slice(-10));
    const open = await fetch(B04, { headers: { range: `bytes=${file.length - 5}-` } });
    expect(open.headers.get("content-range")).toBe(`bytes ${file.length - 5}-${file.length - 1}/${file.length}`);
    await open.arrayBuffer();
  });

  it("answers HEAD with the size and the MD5 ETag, and If-None-Match with 304", async () => {
    const file = await sample("sentinel-2-l2a/S2A_29RKH_20200219_0_L2A/B04.tif");
    const md5 = [...new Uint8Array(await crypto.subtle.digest("MD5", file))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    const r = await fetch(B04, { method: "HEAD" });
    expect(r.status).toBe(200);
    expect(Number(r.headers.get("content-length"))).toBe(file.length);
    expect(r.headers.get("etag")).toBe(`"${md5}"`);
    const again = await fetch(B04, { headers: { "if-none-match": `"${md5}"` } });
    expect(again.status).toBe(304);
  });

  it("answers 416 beyond the end, 404 NoSuchKey / NoSuchBucket as S3 XML", async () => {
    const r = await fetch(B04, { headers: { range: "bytes=999999999-" } });
    expect(r.status).toBe(416);
    expect(r.headers.get("content-range")).toMatch(/^bytes \*\/\d+$/);
    expect(await r.text()).toContain("<Code>InvalidRange</Code>");
    const missing = await fetch(`${TWIN}/objects/sentinel-cogs/${RKH}/TCI.tif`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toMatch(
      /<Code>NoSuchKey<\/Code>.*<Key>sentinel-s2-l2a-cogs\/29\/R\/KH\/2020\/2\/S2A_29RKH_20200219_0_L2A\/TCI.tif<\/Key>/s,
    );
    const bucket = await fetch(`${TWIN}/objects/no-such-bucket/x.tif`);
    expect(bucket.status).toBe(404);
    expect(await bucket.text()).toContain("<Code>NoSuchBucket</Code>");
  });

  it("counts object requests and bytes, and injects faults on a prefix", async () => {
    await (await fetch(B04, { headers: { range: "bytes=0-99" } })).arrayBuffer();
    await hook("faults", { prefix: `/objects/sentinel-cogs/${RKH}/B04.tif`, status: 503, count: 1 });
    const failed = await fetch(B04, { headers: { range: "bytes=0-99" } });
    expect(failed.status).toBe(503);
    expect(await failed.text()).toContain("<Code>SlowDown</Code>");
    expect((await fetch(B04, { headers: { range: "bytes=0-99" } })).status).toBe(206);
    const stats = await hook("stats");
    expect(stats).toMatchObject({ object: 3, bytes: 200 });
    expect((stats.objects as Record<string, number>)[`sentinel-cogs/${RKH}/B04.tif`]).toBe(3);
    await hook("faults", { prefix: "/earth-search/v1/collections", status: "hang", count: 1 });
    const hung = await Promise.race([
      fetch(`${ES}/collections`).then(() => "answered"),
      new Promise((r) => setTimeout(() => r("hung"), 300)),
    ]);
    expect(hung).toBe("hung");
    expect((await fetch(`${ES}/collections`)).status).toBe(200);
    // requests in flight at once (latency holds them open): what a Worker's 6-connection limit is checked against
    await hook("reset", {});
    await hook("latency", { ms: 300 });
    await Promise.all(
      [0, 1, 2].map((i) => fetch(B04, { headers: { range: `bytes=${i}-${i}` } }).then((r) => r.arrayBuffer())),
    );
    await hook("latency", { ms: 0 });
    expect(await hook("stats")).toMatchObject({ object: 3, peakInFlight: 3, inFlight: 0 });
    // the twin's root and other scopes keep their own counts and faults
    expect((await (await fetch(`${env.ARCHIVE_TWIN_URL}/t/other-scope/_twin/stats`)).json()) as object).toMatchObject({
      object: 0,
    });
    const described = (await (await fetch(`${TWIN}/_twin/describe`)).json()) as {
      stacUrl: Record<string, string>;
      urlMap: Record<string, string>;
    };
    expect(described.stacUrl["earth-search"]).toBe(ES);
    expect(described.urlMap["https://sentinel-cogs.s3.us-west-2.amazonaws.com/"]).toBe(
      `${TWIN}/objects/sentinel-cogs/`,
    );
    const bad = await fetch(`${TWIN}/_twin/faults`, {
      method: "POST",
      body: JSON.stringify({ prefix: "/", status: 200 }),
    });
    expect(bad.status).toBe(400);
  });
});

describe("Earth Search v1 STAC API", () => {
  it("serves the landing page, conformance, collections and the real 29RKH item with its real hrefs", async () => {
    const landing = (await (await fetch(ES)).json()) as {
      conformsTo: string[];
      links: { rel: string; href: string }[];
    };
    expect(landing.conformsTo).toContain("https://api.stacspec.org/v1.0.0/item-search");
    expect(landing.links.find((l) => l.rel === "search")?.href).toBe(`${ES}/search`);
    const cols = (await (await fetch(`${ES}/collections`)).json()) as { collections: { id: string }[] };
    expect(cols.collections.map((c) => c.id)).toContain("sentinel-2-l2a");
    const r = await fetch(`${ES}/collections/sentinel-2-l2a/items/S2A_29RKH_20200219_0_L2A`);
    expect(r.status).toBe(200);
    const item = (await r.json()) as {
      properties: Record<string, unknown>;
      assets: Record<string, { href: string }>;
      links: { rel: string; href: string }[];
    };
    expect(item.properties["earthsearch:boa_offset_applied"]).toBe(false);
    expect(item.assets.red!.href).toBe(`https://sentinel-cogs.s3.us-west-2.amazonaws.com/${RKH}/B04.tif`);
    expect(item.links.find((l) => l.rel === "self")?.href).toBe(
      `${ES}/collections/sentinel-2-l2a/items/S2A_29RKH_20200219_0_L2A`,
    );
    expect((await fetch(`${ES}/collections/sentinel-2-l2a/items/S2A_NOPE`)).status).toBe(404);
    const nocol = await fetch(`${ES}/collections/nope`);
    expect(nocol.status).toBe(404);
    expect(await nocol.json()).toMatchObject({ code: "NotFound" });
  });

  it("filters by bbox, intersects, datetime, ids, query and CQL2 filter", async () => {
    const ids = async (q: string | object) => {
      const r =
        typeof q === "string"
          ? await fetch(`${ES}/search?collections=sentinel-2-l2a&${q}`)
          : await fetch(`${ES}/search`, {
              method: "POST",
              body: JSON.stringify({ collections: ["sentinel-2-l2a"], ...q }),
            });
      expect(r.status).toBe(200);
      return ((await r.json()) as { features: { id: string }[] }).features.map((f) => f.id);
    };
    const rkh = ["S2A_29RKH_20200219_0_L2A"];
    expect(await ids("bbox=-11.5,24.5,-11.4,24.6")).toEqual(rkh);
    expect(await ids("bbox=10,40,11,41")).toEqual([]);
    expect(await ids({ intersects: { type: "Point", coordinates: [-11.4, 24.8] } })).toEqual(rkh);
    expect(await ids("datetime=2020-02-19T00:00:00Z/2020-02-20T00:00:00Z")).toEqual(rkh);
    expect(await ids("datetime=../2020-02-18T00:00:00Z")).toEqual([]);
    expect(await ids("ids=S2A_29RKH_20200219_0_L2A,other")).toEqual(rkh);
    expect(await ids({ query: { "eo:cloud_cover": { lt: 5 } } })).toEqual(rkh);
    expect(await ids({ query: { "eo:cloud_cover": { lt: 4 } } })).toEqual([]);
    expect(
      await ids({ filter: { op: "<", args: [{ property: "eo:cloud_cover" }, 4.1] }, "filter-lang": "cql2-json" }),
    ).toEqual(rkh);
    expect(await ids(`filter=${encodeURIComponent("\"s2:processing_baseline\" = '04.00'")}`)).toEqual([]);
  });

  it("pages with stac-server's next links (GET href and POST body) through every item once", async () => {
    const all = (await (await fetch(`${ES}/search?limit=100`)).json()) as {
      numberMatched: number;
      features: { id: string }[];
    };
    expect(all.numberMatched).toBeGreaterThanOrEqual(5);
    type Page = {
      features: { id: string }[];
      links: { rel: string; href: string; method?: string; body?: Record<string, unknown> }[];
      context: { returned: number };
    };
    for (const method of ["GET", "POST"]) {
      const seen: string[] = [];
      const first = await (method === "GET"
        ? fetch(`${ES}/search?limit=2`)
        : fetch(`${ES}/search`, { method, body: JSON.stringify({ limit: 2 }) }));
      let page = (await first.json()) as Page;
      for (;;) {
        expect(page.context.returned).toBe(page.features.length);
        seen.push(...page.features.map((f) => f.id));
        const next = page.links.find((l) => l.rel === "next");
        if (!next) break;
        expect(next.method).toBe(method);
        if (method === "POST") expect(next.body).toMatchObject({ limit: 2, next: expect.any(String) });
        const r = await (method === "GET"
          ? fetch(next.href)
          : fetch(next.href, { method, body: JSON.stringify(next.body) }));
        page = (await r.json()) as Page;
      }
      expect(seen, method).toEqual(all.features.map((f) => f.id));
    }
  });

  it("answers bad parameters with 400 in stac-server's shape", async () => {
    for (const q of ["limit=0", "bbox=1,2,3", "datetime=yesterday", "intersects=%7B", "next=nope"]) {
      const r = await fetch(`${ES}/search?${q}`);
      expect(r.status, q).toBe(400);
      expect(await r.json()).toMatchObject({ code: "BadRequest" });
    }
  });
});

describe("Planetary Computer", () => {
  it("issues SAS tokens whose expiry is in the future", async () => {
    const r = await fetch(`${TWIN}/planetary-computer/api/sas/v1/token/sentinel-1-grd`);
    expect(r.status).toBe(200);
    const sas = (await r.json()) as { "msft:expiry": string; token: string };
    expect(Date.parse(sas["msft:expiry"])).toBeGreaterThan(Date.now());
    expect(new URLSearchParams(sas.token).get("sig")).toBeTruthy();
    expect((await fetch(`${TWIN}/planetary-computer/api/sas/v1/token/no-such-collection`)).status).toBe(404);
    expect(await hook("stats")).toMatchObject({ token: 2 });
  });

  it("pages with pgstac tokens and serves Landsat with its real asset layout", async () => {
    const r = await fetch(`${PC}/search`, {
      method: "POST",
      body: JSON.stringify({ collections: ["landsat-c2-l2", "cop-dem-glo-30", "sentinel-1-grd"], limit: 1 }),
    });
    const page = (await r.json()) as {
      features: { id: string; assets: Record<string, { href: string }> }[];
      links: { rel: string; body?: { token?: string } }[];
    };
    expect(page.features).toHaveLength(1);
    const token = page.links.find((l) => l.rel === "next")?.body?.token;
    expect(token).toMatch(/^next:[a-z0-9-]+:.+$/);
    const next = (await (
      await fetch(`${PC}/search`, {
        method: "POST",
        body: JSON.stringify({ collections: ["landsat-c2-l2", "cop-dem-glo-30", "sentinel-1-grd"], limit: 1, token }),
      })
    ).json()) as typeof page;
    expect(next.features[0]!.id).not.toBe(page.features[0]!.id);
    const landsat = (await (
      await fetch(`${PC}/collections/landsat-c2-l2/items/LC08_L2SP_001062_20201031_02_T2`)
    ).json()) as (typeof page.features)[0];
    expect(landsat.assets.red!.href).toBe(
      "https://landsateuwest.blob.core.windows.net/landsat-c2/level-2/standard/oli-tirs/2020/001/062/LC08_L2SP_001062_20201031_20201106_02_T2/LC08_L2SP_001062_20201031_20201106_02_T2_SR_B4.TIF",
    );
  });

  it("reads blobs only with an unexpired SAS of their container, as Azure answers", async () => {
    const blob = `${TWIN}/objects/elevationeuwest.blob.core.windows.net/copernicus-dem/COP90_hh/Copernicus_DSM_COG_30_S90_00_W164_00_DEM.tif`;
    const anonymous = await fetch(blob, { headers: { range: "bytes=0-7" } });
    expect(anonymous.status).toBe(409);
    expect(await anonymous.text()).toContain("PublicAccessNotPermitted");
    const { token } = (await (await fetch(`${TWIN}/planetary-computer/api/sas/v1/token/cop-dem-glo-90`)).json()) as {
      token: string;
    };
    const ok = await fetch(`${blob}?${token}`, { headers: { range: "bytes=0-7" } });
    expect(ok.status).toBe(206);
    const file = await sample(
      "archive/copernicus-dem-90m/Copernicus_DSM_COG_30_S90_00_W164_00_DEM/Copernicus_DSM_COG_30_S90_00_W164_00_DEM.tif",
    );
    expect(new Uint8Array(await ok.arrayBuffer())).toEqual(file.slice(0, 8));
    const other = (await (await fetch(`${TWIN}/planetary-computer/api/sas/v1/token/landsat-c2-l2`)).json()) as {
      token: string;
    };
    const wrong = await fetch(`${blob}?${other.token}`);
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).toContain("<Code>AuthenticationFailed</Code>");
    await hook("faults", { status: "expire-tokens" });
    const expired = await fetch(`${blob}?${token}`, { headers: { range: "bytes=0-7" } });
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain("Signature not valid in the specified time frame");
    // a token asked again at once (its times, in whole seconds, likely those of the revoked one) is a new one
    const again = (await (await fetch(`${TWIN}/planetary-computer/api/sas/v1/token/cop-dem-glo-90`)).json()) as {
      token: string;
    };
    expect(again.token).not.toBe(token);
    expect((await fetch(`${blob}?${again.token}`, { headers: { range: "bytes=0-7" } })).status).toBe(206);
  });

  it("serves the pgstac landing page and 404s an unknown collection in its shape", async () => {
    const landing = (await (await fetch(PC)).json()) as { id: string };
    expect(landing.id).toBe("microsoft-pc");
    const r = await fetch(`${PC}/collections/nope`);
    expect(r.status).toBe(404);
    expect(await r.json()).toMatchObject({ code: "NotFoundError" });
  });
});

describe("requester-pays", () => {
  const signer = (secretAccessKey = env.AWS_SECRET_ACCESS_KEY, region = "eu-central-1") =>
    new AwsClient({ accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey, service: "s3", region });
  const url = `${TWIN}/objects/sentinel-s2-l2a/tiles/29/R/KH/2020/2/19/0/B04.jp2`;

  it("refuses anonymous, unsigned-payer, wrong-key and wrong-region requests with S3's codes", async () => {
    const anon = await fetch(url);
    expect(anon.status).toBe(403);
    expect(await anon.text()).toContain("<Code>AccessDenied</Code>");
    const noPayer = await signer().fetch(url);
    expect(noPayer.status).toBe(403);
    expect(await noPayer.text()).toContain("<Code>AccessDenied</Code>");
    const badKey = await signer("not-the-secret").fetch(url, { headers: { "x-amz-request-payer": "requester" } });
    expect(badKey.status).toBe(403);
    expect(await badKey.text()).toContain("<Code>SignatureDoesNotMatch</Code>");
    const region = await signer(undefined, "us-west-2").fetch(url, { headers: { "x-amz-request-payer": "requester" } });
    expect(region.status).toBe(400);
    expect(await region.text()).toContain("expecting 'eu-central-1'");
  });

  it("passes a SigV4-signed request with x-amz-request-payer to the object (404 here: no JP2 is bundled)", async () => {
    const r = await signer().fetch(url, { headers: { "x-amz-request-payer": "requester", range: "bytes=0-15" } });
    expect(r.status).toBe(404);
    expect(await r.text()).toContain("<Code>NoSuchKey</Code>");
  });
});
