/** GET /api/v2/batch/tilinggrids[/{id}] and the /batch/v2 aliases: paged list, one grid, 404 / 400, auth. */
import { describe, expect, it } from "vitest";
import { checkResolution, tilingGrid } from "../../src/batch/grids";
import { renderError } from "../../src/http/errors";
import { authed, call, envelope, token } from "../helpers/auth";
import { engineErrorOf } from "../helpers/engine-error";

interface Grid {
  id: number;
  name: string;
  properties: { resolutions: number[]; unit: string; tileWidth: number };
}
interface Page {
  data: Grid[];
  links: { currentToken: string; nextToken?: string; previousToken?: string; "@id": string; next?: string };
}

describe("tiling grid routes", () => {
  it("list every grid in id order on both paths, and page with count / viewtoken", async () => {
    const bearer = await token();
    for (const base of ["/api/v2/batch/tilinggrids", "/batch/v2/tilinggrids"]) {
      const r = await authed(base, {}, bearer);
      expect(r.status).toBe(200);
      const page = (await r.json()) as Page;
      expect(page.data.map((g) => [g.id, g.name])).toEqual([
        [0, "20km grid"],
        [1, "10km grid"],
        [2, "100km grid"],
        [3, "WGS84 1 degree grid"],
        [6, "LAEA 100km grid"],
        [7, "LAEA 20km grid"],
      ]);
      expect(page.links.nextToken).toBeUndefined();
      expect(page.links["@id"]).toBe(`http://localhost${base}`);
    }
    const first = (await (await authed("/api/v2/batch/tilinggrids?count=4", {}, bearer)).json()) as Page;
    expect(first.data.map((g) => g.id)).toEqual([0, 1, 2, 3]);
    const second = (await (
      await authed(`/api/v2/batch/tilinggrids?count=4&viewtoken=${first.links.nextToken}`, {}, bearer)
    ).json()) as Page;
    expect(second.data.map((g) => g.id)).toEqual([6, 7]);
    expect(second.links.nextToken).toBeUndefined();
    expect(second.links.previousToken).toBeDefined();
  });

  it("get one grid; unknown ids are 404 and non-integer ids 400, naming the grids", async () => {
    const bearer = await token();
    const r = await authed("/batch/v2/tilinggrids/3", {}, bearer);
    expect(r.status).toBe(200);
    const grid = (await r.json()) as Grid;
    expect([grid.id, grid.name, grid.properties.unit, grid.properties.tileWidth]).toEqual([
      3,
      "WGS84 1 degree grid",
      "DEGREE",
      1,
    ]);
    const missing = await authed("/api/v2/batch/tilinggrids/5", {}, bearer);
    expect(missing.status).toBe(404);
    expect((await envelope(missing)).message).toBe(
      "Tiling grid 5 does not exist; the tiling grids are 0, 1, 2, 3, 6, 7.",
    );
    const bad = await authed("/api/v2/batch/tilinggrids/utm", {}, bearer);
    expect(bad.status).toBe(400);
    expect((await envelope(bad)).message).toMatch(/Invalid tiling grid id 'utm'/);
    const badCount = await authed("/api/v2/batch/tilinggrids?count=0", {}, bearer);
    expect(badCount.status).toBe(400);
  });

  it("render a batch request's unknown grid or resolution not offered as 400 envelopes naming what is offered", async () => {
    const unknownGrid = renderError(engineErrorOf(() => tilingGrid(5)));
    expect(unknownGrid.status).toBe(400);
    expect((await envelope(unknownGrid)).message).toMatch(
      /^Tiling grid 5 does not exist; the tiling grids are 0 \(20km grid\)/,
    );
    const resolution = renderError(engineErrorOf(() => checkResolution(tilingGrid(7), 30)));
    expect(resolution.status).toBe(400);
    expect((await envelope(resolution)).message).toBe(
      "Resolution 30 is not offered by tiling grid 7 (LAEA 20km grid); offered resolutions (m): 10, 20.",
    );
  });

  it("need a token", async () => {
    expect((await call("/api/v2/batch/tilinggrids")).status).toBe(401);
  });
});
