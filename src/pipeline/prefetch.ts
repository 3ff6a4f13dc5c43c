/**
 * The scene search of a request, started before its evalscript is prepared: the search depends only on the request
 * (collection, area, time range, dataFilter), not on setup(), and through an upstream archive it is a round trip
 * (the local store's query, then the archive's STAC search) that the evalscript's compile, sandbox and setup() can
 * overlap. The pipeline's own search of the same source (pipeline.ts findSource) then joins it while it is in
 * flight (scenes.ts findScenes) or finds its answer in the caches (src/storage/scenes.ts, src/archive/upstream.ts).
 *
 * Measured on a cold NDVI through the archive twin (40 ms per request): the evalscript stage (compile, Worker Loader
 * sandbox, setup) ran before the search, 9-57 ms on a loaded machine; it now runs while the search travels.
 */
import { assertHosted } from "../locations/hosting";
import type { Env } from "../env";
import { collectionForType } from "./collections";
import type { DataSourceRequest } from "./input";
import { MAX_SCENES } from "./pipeline";
import { sourceWindow, type AreaPlan } from "./plan";
import { findScenes, sceneQueryFor } from "./scenes";

/**
 * Starts the scene search of every `input.data` entry of a request over `area` in the background, as the pipeline
 * will run it (MAX_SCENES, the entry's window and order), for `account`. Only entries whose timeRange has both ends
 * (an open end is "now", which would differ from the pipeline's by the time setup() took) and whose collection this
 * location hosts; entries the script may not read are searched too (rare: data fusion with unused entries). Never
 * throws: a failing search fails again, with its own error, when the pipeline asks for it.
 */
export function prefetchScenes(env: Env, account: string | null, area: AreaPlan, data: DataSourceRequest[]): void {
  for (const request of data) {
    const t = request.dataFilter?.timeRange;
    if (!t?.from || !t.to) continue;
    const { from, to } = sourceWindow(request);
    void (async () => {
      const collection = await collectionForType(env, account, request.type);
      assertHosted(env, [collection]);
      const source = { request, collection };
      await findScenes(env, source, sceneQueryFor(source, area.lonLatBbox, from, to, MAX_SCENES));
    })().catch(() => undefined);
  }
}
