/** Types of the sandbox module "limits.js", which sandbox.ts makes from ../limits.ts SANDBOX_LIMITS. */
export declare const L: typeof import("../limits").SANDBOX_LIMITS;
