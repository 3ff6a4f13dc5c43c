/**
 * Documented limits of evalscript execution (each breach is a 400 whose message names the limit).
 * Production has two more that local workerd does not enforce: Worker Loader `limits.cpuMs` per sandbox call
 * (RuntimeLimits.cpuMs, 30 s) and the 128 MB memory limit of a Workers isolate.
 */

/** Limits enforced inside the sandbox isolate (sandbox/harden.ts, sandbox/entry.ts). */
export const SANDBOX_LIMITS = {
  /** Bytes of one ArrayBuffer / SharedArrayBuffer (also maxByteLength and transfer) or typed array. */
  allocationBytes: 64 * 1024 * 1024,
  /** Elements of one Array (Array(n), Array.from, fill) and of the receiver of an iterating Array method. */
  arrayLength: 8 * 1024 * 1024,
  /** Characters made by one String.prototype.repeat / padStart / padEnd. */
  stringLength: 16 * 1024 * 1024,
  /** Characters of a string a regular expression is run on. */
  regexSubject: 10_000,
  /**
   * Bound on n^(k+1) for a regex with k quantifiers run on n characters (its worst backtracking, see
   * compile/regex.ts): /^(\d+)-(\d+)$/ (k = 2) runs on up to 464 characters, a k = 5 pattern on up to 21.
   */
  regexSteps: 100_000_000,
  /** Budget ticks charged per 16 bytes allocated (an allocation is work the loop counter does not see). */
  bytesPerTick: 16,
  /** Budget ticks charged per 4 elements an Array method walks. */
  elementsPerTick: 4,
  /** Characters of an error message kept (longer ones are cut, saying by how much). */
  messageChars: 2000,
  /** Characters of the JSON of outputMetadata.userData. */
  userDataChars: 8 * 1024 * 1024,
  /** Characters of the JSON of what setup() returns. */
  setupChars: 1024 * 1024,
} as const;

/** Limits enforced on the host (compile.ts, runtime.ts). */
export const HOST_LIMITS = {
  /** Characters of an evalscript. */
  scriptChars: 1024 * 1024,
  /** Output bands of one evaluation, summed over its outputs (setup() and updateOutput()). */
  outputBands: 1000,
  /**
   * Raw output bytes of one evaluation: width * height * sum over outputs of bands * bytes per sample (FLOAT32 4,
   * (U)INT16 2, others 1). 256 MiB allows 2500 x 2500 FLOAT32 with 10 bands (250 MB).
   */
  outputBytes: 256 * 1024 * 1024,
} as const;
