/** Types of the sandbox module "regex.js", which sandbox.ts makes from the source of ../compile/regex.ts regexShape. */
export { regexShape } from "../compile/regex";
