/** BYOC tile files (list, get with Range) and copyTiles, against the real sample files in a local bucket. */
import { beforeAll, describe, expect, it } from "vitest";
import { authed } from "../helpers/auth";
import { api, putInBucket, settled, tokenOf } from "../helpers/byoc";
import { sampleFile } from "../helpers/seed";

const BUCKET = "byoc-files";
const SRC = "sentinel-2-l2a/westflanders/2018-04-14";
const C = "/api/v1/byoc/collections";
let owner: string, c: string, tile: string;

beforeAll(async () => {
  owner = await tokenOf(crypto.randomUUID());
  for (const b of ["B04", "B08"]) await putInBucket(BUCKET, `t1/${b}.tif`, `${SRC}/${b}.tif`);
  c = (await api(owner, "POST", C, { name: "files", s3Bucket: BUCKET })).json.data.id;
  tile = (await api(owner, "POST", `${C}/${c}/tiles`, { path: "t1" })).json.data.id;
  expect((await settled(owner, c, tile)).status).toBe("INGESTED");
});

describe("tile files", () => {
  it("lists the band files and serves them whole or by Range", async () => {
    expect((await api(owner, "GET", `${C}/${c}/tiles/${tile}/files`)).json).toEqual(["t1/B04.tif", "t1/B08.tif"]);
    const file = new Uint8Array(await sampleFile(`${SRC}/B08.tif`));
    const whole = await authed(`${C}/${c}/tiles/${tile}/files/t1/B08.tif`, {}, owner);
    expect(whole.status).toBe(200);
    expect(new Uint8Array(await whole.arrayBuffer())).toEqual(file);
    const part = await authed(
      `${C}/${c}/tiles/${tile}/files/t1/B08.tif`,
      { headers: { range: "bytes=100-199" } },
      owner,
    );
    expect([part.status, part.headers.get("content-range")]).toEqual([206, `bytes 100-199/${file.length}`]);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(file.slice(100, 200));
    expect((await authed(`${C}/${c}/tiles/${tile}/files/t1/B02.tif`, {}, owner)).status).toBe(404);
  });

  it("HEAD gives a file's size without its bytes; a missing file is 404", async () => {
    const size = (await sampleFile(`${SRC}/B08.tif`)).byteLength;
    const head = await authed(`${C}/${c}/tiles/${tile}/files/t1/B08.tif`, { method: "HEAD" }, owner);
    expect([head.status, head.headers.get("content-length")]).toEqual([200, String(size)]);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    expect((await authed(`${C}/${c}/tiles/${tile}/files/t1/B02.tif`, { method: "HEAD" }, owner)).status).toBe(404);
  });
});

describe("copyTiles", () => {
  it("copies ingested tiles whose path the target lacks; a target with other bands is refused", async () => {
    const target = (await api(owner, "POST", C, { name: "copy target", s3Bucket: BUCKET })).json.data.id;
    expect((await api(owner, "POST", `${C}/${c}/copyTiles?toCollection=${target}`)).status).toBe(204);
    const copied = (await api(owner, "GET", `${C}/${target}/tiles`)).json.data;
    expect(copied.map((t: { path: string }) => t.path)).toEqual(["t1"]);
    expect((await settled(owner, target, copied[0].id)).status).toBe("INGESTED");
    expect((await api(owner, "POST", `${C}/${c}/copyTiles?toCollection=${target}`)).status).toBe(204);
    expect((await api(owner, "GET", `${C}/${target}/tiles`)).json.data.length).toBe(1); // path present: not copied again
    const other = (
      await api(owner, "POST", C, {
        name: "other bands",
        s3Bucket: BUCKET,
        additionalData: { bands: { X: { bitDepth: 8, sampleFormat: "UINT" } } },
      })
    ).json.data.id;
    const r = await api(owner, "POST", `${C}/${c}/copyTiles?toCollection=${other}`);
    expect([r.status, r.json.error.message]).toEqual([400, expect.stringContaining("other bands")]);
  });

  it("toCollection missing or not a uuid is a 400 (the spec's required uuid); an unknown or another account's target a 404", async () => {
    for (const q of ["", "?toCollection=", "?toCollection=not-a-uuid"]) {
      const r = await api(owner, "POST", `${C}/${c}/copyTiles${q}`);
      expect([r.status, r.json.error.code], q).toEqual([400, "COMMON_BAD_PAYLOAD"]);
      expect(r.json.error.errors).toEqual({ toCollection: "a uuid is required" });
    }
    const stranger = await tokenOf(crypto.randomUUID());
    const theirs = (await api(stranger, "POST", C, { name: "theirs", s3Bucket: "byoc-files-theirs" })).json.data.id;
    for (const id of [crypto.randomUUID(), theirs]) {
      const r = await api(owner, "POST", `${C}/${c}/copyTiles?toCollection=${id}`);
      expect([r.status, r.json.error.message]).toEqual([404, `Target BYOC collection ${id} not found.`]);
    }
  });
});
