/**
 * OAuth client credentials checks (src/auth/clients.ts) and the constant-time comparison under them
 * (src/http/compare.ts), which must also work where `crypto.subtle.timingSafeEqual` does not exist: Node 20 and 22,
 * where scripts/seed.ts verifies the demo client of `npm start` (it used to throw there, and every start made
 * another demo client).
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, verifyClient } from "../../src/auth/clients";
import { constantTimeEqual } from "../../src/http/compare";

describe("constantTimeEqual", () => {
  const digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

  it("is true for the same string only", () => {
    expect(constantTimeEqual(digest, `${digest}`)).toBe(true);
    expect(constantTimeEqual("", "")).toBe(true);
    expect(constantTimeEqual("é∑", "é∑")).toBe(true);
  });

  it("is false when one character differs, wherever it is", () => {
    for (const i of [0, 31, 63]) {
      const other = digest.slice(0, i) + (digest[i] === "0" ? "1" : "0") + digest.slice(i + 1);
      expect(constantTimeEqual(digest, other)).toBe(false);
      expect(constantTimeEqual(other, digest)).toBe(false);
    }
  });

  it("is false for different lengths, prefixes and empty strings included", () => {
    expect(constantTimeEqual(digest, digest.slice(0, 63))).toBe(false);
    expect(constantTimeEqual(digest.slice(0, 63), digest)).toBe(false);
    expect(constantTimeEqual(digest, `${digest}0`)).toBe(false);
    expect(constantTimeEqual(digest, "")).toBe(false);
    expect(constantTimeEqual("", digest)).toBe(false);
    // a NUL past the end must not pass for the missing byte
    expect(constantTimeEqual("ab", "ab\0")).toBe(false);
    expect(constantTimeEqual("ab\0", "ab")).toBe(false);
  });

  it("tells non-ASCII strings apart (composed and decomposed é, neighbouring code points)", () => {
    expect(constantTimeEqual("é", "e\u0301")).toBe(false);
    expect(constantTimeEqual("\u00e9", "\u00e8")).toBe(false);
  });
});

/** SubtleCrypto.prototype without timingSafeEqual for the duration of a test, as in Node. */
const proto = Object.getPrototypeOf(crypto.subtle) as Record<string, unknown>;
const nativeTimingSafeEqual = Object.getOwnPropertyDescriptor(proto, "timingSafeEqual");
afterEach(() => {
  if (nativeTimingSafeEqual) Object.defineProperty(proto, "timingSafeEqual", nativeTimingSafeEqual);
});

describe("verifyClient", () => {
  it("accepts the right secret and refuses a wrong one, an unknown client and an expired client", async () => {
    const account = crypto.randomUUID();
    const c = await createClient(env, { accountId: account, name: "verify me" });
    expect(await verifyClient(env, c.client_id, c.client_secret)).toEqual({
      clientId: c.client_id,
      accountId: account,
      name: "verify me",
      spaOrigins: null,
    });
    const last = c.client_secret.at(-1) === "0" ? "1" : "0";
    expect(await verifyClient(env, c.client_id, c.client_secret.slice(0, -1) + last)).toBeNull();
    expect(await verifyClient(env, c.client_id, c.client_secret.slice(0, -1))).toBeNull();
    expect(await verifyClient(env, c.client_id, "")).toBeNull();
    expect(await verifyClient(env, crypto.randomUUID(), c.client_secret)).toBeNull();
    const expired = await createClient(env, { accountId: account, name: "old", expires: "2020-01-01T00:00:00Z" });
    expect(await verifyClient(env, expired.client_id, expired.client_secret)).toBeNull();
  });

  it("works without crypto.subtle.timingSafeEqual (Node 20 and 22, where the seed of npm start runs it)", async () => {
    expect(nativeTimingSafeEqual?.configurable).toBe(true);
    delete proto.timingSafeEqual;
    expect(typeof (crypto.subtle as unknown as Record<string, unknown>).timingSafeEqual).toBe("undefined");
    const account = crypto.randomUUID();
    const c = await createClient(env, { accountId: account, name: "node" });
    expect((await verifyClient(env, c.client_id, c.client_secret))?.accountId).toBe(account);
    expect(
      await verifyClient(
        env,
        c.client_id,
        c.client_secret.replace(/.$/, (d) => (d === "a" ? "b" : "a")),
      ),
    ).toBeNull();
  });
});
