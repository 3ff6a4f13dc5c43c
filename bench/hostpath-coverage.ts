// Which scripts of data/evalscripts take the evalscript host path (src/raster/evalscript/hostpath) and why the others
// do not: prints JSON [{ name, host: true } | { name, reason }] (run with tsx; bench/bench-scripts.mjs prints it).
// The decision is the runtime's: setup() read from the source when it is a literal, else the sandbox's (here: the
// script is listed with that reason), then the column program for that setup.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { compileProgram, setupLiteral } from "../src/raster/evalscript/hostpath/compile";
import { NotPure } from "../src/raster/evalscript/hostpath/program";
import { normalizeSetup } from "../src/raster/evalscript/host/setup";

const DIR = "data/evalscripts";
const rows = readdirSync(DIR)
  .filter((f) => f.endsWith(".js"))
  .sort()
  .map((name) => {
    const source = readFileSync(join(DIR, name), "utf8");
    try {
      const literal = setupLiteral(source);
      if ("reason" in literal) return { name, reason: literal.reason };
      compileProgram(source, normalizeSetup(literal.value));
      return { name, host: true };
    } catch (e) {
      return {
        name,
        reason: e instanceof NotPure ? e.message : `does not compile: ${(e as Error).message.split("\n")[0]}`,
      };
    }
  });
console.log(JSON.stringify(rows));
