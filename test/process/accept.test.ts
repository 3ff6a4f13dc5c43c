/** Accept negotiation (RFC 9110 12.5.1) for the Processing API: unit tests of src/process/accept.ts. */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/http/errors";
import { bestType, negotiate, producibleTypes } from "../../src/process/accept";

const one = (type: string, identifier = "default") => [{ identifier, format: { type } }];
const three = [
  { identifier: "default", format: { type: "image/tiff" } },
  { identifier: "mask", format: { type: "image/png" } },
  { identifier: "userdata", format: { type: "application/json" } },
];

function rejection(f: () => unknown): ApiError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error("expected a rejection");
}

describe("bestType", () => {
  const available = ["image/tiff", "image/png", "image/jpeg"];

  it("takes the first available type without a header, with a blank one and with */*", () => {
    for (const accept of [null, "", "  ", "*/*"]) expect(bestType(accept, available)).toBe("image/tiff");
  });

  it("orders by q-value, then specificity, then the header's order", () => {
    expect(bestType("image/png;q=0.5, image/jpeg;q=0.8", available)).toBe("image/jpeg");
    expect(bestType("image/*;q=0.9, image/png", available)).toBe("image/png");
    expect(bestType("image/jpeg, image/png", available)).toBe("image/jpeg");
    expect(bestType("IMAGE/PNG", available)).toBe("image/png");
  });

  it("q=0 excludes a type, also when a wildcard would match it", () => {
    expect(bestType("image/tiff;q=0, */*", available)).toBe("image/png");
    expect(bestType("image/*;q=0", available)).toBeNull();
    expect(bestType("*/*;q=0", available)).toBeNull();
  });

  it("a wildcard of another top-level type or unknown types match nothing", () => {
    expect(bestType("text/*", available)).toBeNull();
    expect(bestType("application/json, text/plain", available)).toBeNull();
  });
});

describe("negotiate", () => {
  it("axios's default Accept gets the requested format", () => {
    for (const type of ["image/png", "image/jpeg", "image/tiff"]) {
      expect(negotiate(one(type), "application/json, text/plain, */*")).toEqual({
        kind: "single",
        type,
        contentType: type,
      });
    }
  });

  it("an image Accept overrides the requested type; image/* and octet-stream keep it (octet-stream as the Content-Type)", () => {
    expect(negotiate(one("image/tiff"), "image/png")).toEqual({
      kind: "single",
      type: "image/png",
      contentType: "image/png",
    });
    expect(negotiate(one("image/jpeg"), "image/*")).toEqual({
      kind: "single",
      type: "image/jpeg",
      contentType: "image/jpeg",
    });
    expect(negotiate(one("image/jpeg"), "application/octet-stream")).toEqual({
      kind: "single",
      type: "image/jpeg",
      contentType: "application/octet-stream",
    });
    expect(negotiate(three, "application/octet-stream")).toEqual({
      kind: "tar",
      contentType: "application/octet-stream",
    });
    expect(negotiate(one("image/png"), "image/png;q=0, image/tiff;q=0.5")).toEqual({
      kind: "single",
      type: "image/tiff",
      contentType: "image/tiff",
    });
  });

  it("userdata is JSON only", () => {
    expect(producibleTypes(one("application/json", "userdata")).slice(0, 2)).toEqual([
      "application/json",
      "application/octet-stream",
    ]);
    expect(negotiate(one("application/json", "userdata"), "*/*")).toEqual({
      kind: "single",
      type: "application/json",
      contentType: "application/json",
    });
    expect(rejection(() => negotiate(one("application/json", "userdata"), "image/png")).status).toBe(400);
  });

  it("several responses: x-tar by default, tar or multipart/mixed on request", () => {
    expect(negotiate(three, null)).toEqual({ kind: "tar", contentType: "application/x-tar" });
    expect(negotiate(three, "application/json, text/plain, */*")).toEqual({
      kind: "tar",
      contentType: "application/x-tar",
    });
    expect(negotiate(three, "application/tar")).toEqual({ kind: "tar", contentType: "application/tar" });
    expect(negotiate(three, "multipart/mixed, application/x-tar;q=0.5")).toEqual({ kind: "multipart" });
    expect(negotiate(one("image/png"), "application/x-tar")).toEqual({ kind: "tar", contentType: "application/x-tar" });
  });

  it("a list with nothing the request can produce is a 400 listing the producible types", () => {
    const err = rejection(() => negotiate(three, "image/png"));
    expect(err.status).toBe(400);
    expect(err.message).toContain("application/x-tar, application/tar, multipart/mixed, application/octet-stream");
    const single = rejection(() => negotiate(one("image/png"), "text/html, application/json"));
    expect(single.message).toContain("image/png, image/jpeg, image/tiff");
  });

  it("an unsupported format.type is a 400 naming the supported ones", () => {
    expect(rejection(() => negotiate(one("image/webp"), null)).message).toMatch(
      /Unsupported output format 'image\/webp'.*image\/png/,
    );
  });
});
