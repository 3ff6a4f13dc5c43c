/**
 * tar and multipart/mixed packing, read back by parsers independent of the writer: test/helpers/tar.ts (checks
 * every header checksum), test/helpers/multipart.ts, and through PY_DECODE Python's tarfile (as sentinelhub-py's
 * decode_tar opens responses) and email package.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { thrown } from "../../helpers/engine";
import {
  encodeGeoTiff,
  encodeJson,
  encodePng,
  extensionFor,
  mimeFor,
  multipartMixed,
  tarArchive,
} from "../../../src/raster/encode";
import { parseMultipart } from "../../helpers/multipart";
import { pyDecode, samplesOf, type PyMultipart, type PyTar } from "../../helpers/pydecode";
import { headerChecksum, readTar } from "../../helpers/tar";
import { s2Window, toUint16, toUint8, type S2Window } from "./samples";

describe("packing several responses", () => {
  let w: S2Window, tif: Uint8Array, png: Uint8Array, json: Uint8Array;
  const userdata = { dates: ["2020-02-19T11:34:25Z"], note: "ü ☀" };
  const entries = () => [
    { name: "default.tif", data: tif },
    { name: "truecolor.png", data: png },
    { name: "userdata.json", data: json },
  ];
  beforeAll(async () => {
    w = await s2Window(["B04", "B03", "B02"], 300, 500, 120, 80);
    tif = encodeGeoTiff(toUint16(w), { epsg: w.epsg, bbox: w.bbox });
    png = await encodePng(toUint8(w));
    json = encodeJson(userdata);
  });

  it("tars <identifier>.<ext> members whose header checksums verify and that read back byte for byte", () => {
    const tar = tarArchive(entries());
    expect(tar.length % 10240).toBe(0);
    const files = readTar(tar);
    expect(files.map((f) => [f.name, f.typeflag, f.size])).toEqual(entries().map((e) => [e.name, "0", e.data.length]));
    files.forEach((f, i) => expect(f.data).toEqual(entries()[i]!.data));
    expect(JSON.parse(new TextDecoder().decode(files[2]!.data))).toEqual(userdata);
  });

  it("the strict reader rejects a tar whose header checksum is off by one", () => {
    const bad = tarArchive(entries());
    bad[0] ^= 0x01; // the first name byte: the stored checksum no longer matches
    expect(headerChecksum(bad.subarray(0, 512))).not.toBe(headerChecksum(tarArchive(entries()).subarray(0, 512)));
    expect(() => readTar(bad)).toThrow(/header checksum/);
  });

  it("Python's tarfile reads it as sentinelhub-py's decode_tar does: names, sizes, decoded TIFF, PNG and JSON", async (ctx) => {
    const [result] = (await pyDecode(ctx, [{ kind: "tar", data: tarArchive(entries()) }])) as PyTar[];
    expect(result!.error).toBeUndefined();
    const [tifMember, pngMember, jsonMember] = result!.members;
    expect(result!.members.map((m) => [m.name, m.type, m.size])).toEqual(
      entries().map((e) => [e.name, "file", e.data.length]),
    );
    expect(tifMember!.tifffile).toMatchObject({ shape: [80, 120, 3], dtype: "uint16" });
    expect(Array.from(samplesOf(tifMember!.tifffile))).toEqual(Array.from(toUint16(w).data));
    expect(Array.from(samplesOf(pngMember!.pillow))).toEqual(Array.from(toUint8(w).data));
    expect(jsonMember!.json).toEqual(userdata);
  });

  it("Python's tarfile stops at a member whose header checksum is broken", async (ctx) => {
    const tar = tarArchive(entries());
    const second = 512 + Math.ceil(tif.length / 512) * 512;
    tar[second + 148] = tar[second + 148] === 0x30 ? 0x31 : 0x30; // a digit of the 2nd header's stored checksum
    expect(() => readTar(tar)).toThrow(/header checksum/);
    const [result] = (await pyDecode(ctx, [{ kind: "tar", data: tar }])) as PyTar[];
    expect((result!.members ?? []).map((m) => m.name)).toEqual(["default.tif"]);
  });

  it("adds the end-of-archive blocks when the members fill a 10240-byte record exactly", () => {
    const data = tif.subarray(0, 10240 - 512);
    const tar = tarArchive([{ name: "default.tif", data }]);
    expect(tar.length).toBe(20480);
    expect(Array.from(tar.subarray(10240)).every((b) => b === 0)).toBe(true);
    expect(readTar(tar)[0]!.data).toEqual(data);
  });

  it("rejects a member name longer than ustar's 100 bytes with 400", () => {
    const e = thrown(() => tarArchive([{ name: "x".repeat(97) + ".tif", data: json }]));
    expect([e.kind, e.status]).toEqual(["invalid-argument", 400]);
  });

  it("writes multipart/mixed parts with Content-Type and Content-Disposition naming the response", () => {
    const { body, contentType } = multipart();
    expect(contentType).toMatch(/^multipart\/mixed; boundary=EOEdge-[0-9a-f]{32}$/);
    const parts = parseMultipart(body, contentType);
    expect(parts.map((p) => p.headers)).toEqual([
      { "content-type": "image/tiff", "content-disposition": 'attachment; name="default"; filename="default.tif"' },
      {
        "content-type": "application/json",
        "content-disposition": 'attachment; name="userdata"; filename="userdata.json"',
      },
    ]);
    expect(parts[0]!.data).toEqual(tif);
    expect(JSON.parse(new TextDecoder().decode(parts[1]!.data))).toEqual(userdata);
  });

  it("Python's email package parses the multipart/mixed body without defects and decodes each part", async (ctx) => {
    const { body, contentType } = multipart();
    const [result] = (await pyDecode(ctx, [{ kind: "multipart", data: body, contentType }])) as PyMultipart[];
    expect(result).toMatchObject({ multipart: true, defects: [] });
    expect(result!.parts.map((p) => [p.contentType, p.filename, p.size])).toEqual([
      ["image/tiff", "default.tif", tif.length],
      ["application/json", "userdata.json", json.length],
    ]);
    expect(Array.from(samplesOf(result!.parts[0]!.gdal))).toEqual(Array.from(toUint16(w).data));
    expect(result!.parts[1]!.json).toEqual(userdata);
  });

  function multipart(): { body: Uint8Array; contentType: string } {
    return multipartMixed([
      { name: "default.tif", contentType: "image/tiff", data: tif },
      { name: "userdata.json", contentType: "application/json", data: json },
    ]);
  }
});

describe("format names", () => {
  it("maps output format types to Sentinel Hub's tar extensions and back", () => {
    expect(["image/png", "image/jpeg", "image/tiff", "application/json"].map(extensionFor)).toEqual([
      "png",
      "jpg",
      "tif",
      "json",
    ]);
    expect(extensionFor("IMAGE/TIFF; application=geotiff")).toBe("tif");
    expect(["png", "jpg", ".JPEG", "tif", "tiff", "json"].map(mimeFor)).toEqual([
      "image/png",
      "image/jpeg",
      "image/jpeg",
      "image/tiff",
      "image/tiff",
      "application/json",
    ]);
    expect(thrown(() => extensionFor("image/webp")).kind).toBe("unsupported");
    expect(thrown(() => mimeFor("webp")).kind).toBe("unsupported");
  });

  it("encodes userdata as UTF-8 JSON, undefined as null", () => {
    expect(new TextDecoder().decode(encodeJson({ a: [1, 2], s: "ü" }))).toBe('{"a":[1,2],"s":"ü"}');
    expect(new TextDecoder().decode(encodeJson(undefined))).toBe("null");
  });
});
