/** withHeaders (src/http/base.ts): headers set in place on a Worker-built Response, on a copy when immutable. */
import { describe, expect, it } from "vitest";
import { withHeaders } from "../../src/http/base";

describe("withHeaders", () => {
  it("sets headers in place on a Response the Worker built (no copy, body untouched)", async () => {
    const r = new Response("body", { headers: { "x-a": "1" } });
    const out = withHeaders(r, { "x-a": "2", "x-b": "3" });
    expect(out).toBe(r);
    expect([out.headers.get("x-a"), out.headers.get("x-b")]).toEqual(["2", "3"]);
    expect(await out.text()).toBe("body");
  });

  it("copies a Response whose headers are immutable (Response.redirect), keeping status and headers", () => {
    const r = Response.redirect("http://localhost/next", 302);
    expect(() => r.headers.set("x-a", "1")).toThrow(TypeError);
    const out = withHeaders(r, { "x-a": "1" });
    expect(out).not.toBe(r);
    expect([out.status, out.headers.get("location"), out.headers.get("x-a")]).toEqual([
      302,
      "http://localhost/next",
      "1",
    ]);
  });
});
