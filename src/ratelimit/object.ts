/**
 * The Durable Object class bound as RATE_LIMITER: the rate-limit buckets of one account (or of one OAuth client
 * for token requests), addressed by name. Its policies and buckets are added in this folder (issue 14).
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";

export class RateLimiter extends DurableObject<Env> {}
