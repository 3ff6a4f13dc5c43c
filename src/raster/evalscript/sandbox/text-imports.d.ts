/**
 * For the host's type check (tsconfig.json): sandbox.ts imports the sandbox's module files as text (their source,
 * a string), as wrangler.toml's `rules` (type "Text", globs "**\/sandbox/*.js") make wrangler's bundler
 * and the vitest plugin do. The files themselves are checked as JavaScript by sandbox/tsconfig.json.
 */
declare module "*/sandbox/entry.js" {
  const source: string;
  export default source;
}
declare module "*/sandbox/harden.js" {
  const source: string;
  export default source;
}
declare module "*/sandbox/lib.js" {
  const source: string;
  export default source;
}
declare module "*/sandbox/scenes.js" {
  const source: string;
  export default source;
}
declare module "*/sandbox/script.js" {
  const source: string;
  export default source;
}
