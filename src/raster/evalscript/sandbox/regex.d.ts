/** Types of the sandbox module "regex.js", which sandbox.ts makes from the source of ../regex.ts regexShape. */
export { regexShape } from "../regex";
