/**
 * GET /api/v2/batch/tilinggrids (paged list, Sentinel Hub's `count` / `viewtoken`) and
 * GET /api/v2/batch/tilinggrids/{id}, with the aliases /batch/v2/tilinggrids[...] of the OpenAPI.
 * Unknown id -> 404; an id that is not an integer -> 400.
 */
import type { IRequest } from "itty-router";
import { json } from "../../http/base";
import { badRequest, notFound } from "../../http/errors";
import { pagedList, parsePageRequest, seekArray } from "../../http/paging";
import type { Api } from "../../http/router";
import { findTilingGrid, gridDescriptor, TILING_GRIDS } from "./index";

/** Largest page of the grid list (and its default): all grids fit in one page. */
const MAX_PAGE = 100;

/** GET .../tilinggrids: `{data: [descriptor], links}` in id order. */
export function listTilingGrids(request: IRequest): Response {
  const url = new URL(request.url);
  const page = parsePageRequest(url, MAX_PAGE, 1);
  const rows = seekArray(TILING_GRIDS, page, (g) => [g.id]);
  const { data, links } = pagedList(url, page, rows, (g) => [g.id]);
  return json({ data: data.map(gridDescriptor), links });
}

/** GET .../tilinggrids/{id}: the descriptor. */
export function getTilingGrid(request: IRequest): Response {
  const raw = decodeURIComponent(request.params.id ?? "");
  if (!/^-?\d+$/.test(raw))
    throw badRequest(`Invalid tiling grid id '${raw}': an integer (see GET /api/v2/batch/tilinggrids).`);
  const grid = findTilingGrid(Number(raw));
  if (!grid)
    throw notFound(
      `Tiling grid ${raw} does not exist; the tiling grids are ${TILING_GRIDS.map((g) => g.id).join(", ")}.`,
    );
  return json(gridDescriptor(grid));
}

/** Registers the tiling grid routes (both path families). */
export function registerTilingGrids(api: Api): void {
  const tag = { tags: ["Batch"] };
  // /api/v1/...: the spec's Versioning puts batch under v1 (src/batch/routes.ts BATCH_PREFIXES)
  for (const base of ["/api/v2/batch/tilinggrids", "/batch/v2/tilinggrids", "/api/v1/batch/tilinggrids"]) {
    api
      .on("GET", base, listTilingGrids, { ...tag, summary: "List the tiling grids" })
      .on("GET", `${base}/:id`, getTilingGrid, { ...tag, summary: "One tiling grid" });
  }
}
