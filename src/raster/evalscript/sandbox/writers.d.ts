/** Types of the sandbox module "writers.js", which sandbox.ts makes from ../host/writers.ts writersModule(). */
/**
 * Stores evaluatePixel's object of values (one per output id) at pixel `i` of the outputs' values.
 * @throws TypeError for a value that is not an object, a missing output id or a value that does not fit an output.
 */
export declare function putAll(outs: import("./evaluation.js").Output[], r: any, i: number): void;
