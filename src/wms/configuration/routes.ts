/**
 * Configuration API routes for WMS instances and their layers (bearer token; records scoped to the token's account:
 * another account's instance answers 404). Lists are plain JSON arrays, as Sentinel Hub's Configuration API.
 */
import type { Env } from "../../env";
import { json, publicBaseUrl } from "../../http/base";
import { ApiError, badRequest, notFound } from "../../http/errors";
import { readJson, validate } from "../../http/parse";
import { accountOf, type Api, type AuthedRequest } from "../../http/router";
import { INSTANCES_PATH, renderInstance, renderLayer } from "./render";
import { instanceSchema, layerSchema } from "./schema";
import * as store from "./store";
import { collectionForType } from "../../pipeline/collections";
import type { LayerInput } from "./schema";

/**
 * Checks each layer's collection type in the registry as `account` sees it.
 * @throws ApiError 400 naming the member (`<prefix><i>.datasourceDefaults.type`) of an unknown type.
 */
async function checkLayers(
  env: Env,
  account: string,
  layers: LayerInput[] | undefined,
  prefix = "layers.",
): Promise<void> {
  for (const [i, l] of (layers ?? []).entries()) {
    try {
      await collectionForType(env, account, l.datasourceDefaults.type);
    } catch (e) {
      const path = `${prefix}${prefix ? `${i}.` : ""}datasourceDefaults.type`;
      throw badRequest(`Invalid WMS layer at '${path}': ${(e as Error).message}`, { [path]: (e as Error).message });
    }
  }
}

/** A layer as the Configuration API returns it; its dataset is the registry id of its collection type. */
async function layerJson(env: Env, inst: store.StoredInstance, l: LayerInput): Promise<Record<string, unknown>> {
  return renderLayer(
    publicBaseUrl(env),
    inst.id,
    l,
    (await collectionForType(env, inst.account, l.datasourceDefaults.type)).id,
  );
}

const param = (r: AuthedRequest, name: string): string => decodeURIComponent(r.params[name] ?? "");

/** The caller's instance named in the path; 404 when missing or another account's. */
async function ownInstance(r: AuthedRequest, env: Env): Promise<store.StoredInstance> {
  const inst = await store.getInstance(env, accountOf(r), param(r, "instanceId"));
  if (!inst) throw notFound(`WMS instance '${param(r, "instanceId")}' not found; GET ${INSTANCES_PATH} lists yours.`);
  return inst;
}

async function instanceResponse(env: Env, inst: store.StoredInstance, status = 200): Promise<Response> {
  return json(renderInstance(publicBaseUrl(env), inst, await store.listLayers(env, inst.id)), status);
}

async function layerOf(r: AuthedRequest, env: Env, instanceId: string) {
  const layer = await store.getLayer(env, instanceId, param(r, "layerId"));
  if (!layer) throw notFound(`Layer '${param(r, "layerId")}' not found in WMS instance '${instanceId}'.`);
  return layer;
}

const handlers = {
  async list(r: AuthedRequest, env: Env) {
    const all = await store.listInstances(env, accountOf(r));
    const base = publicBaseUrl(env);
    return json(await Promise.all(all.map(async (i) => renderInstance(base, i, await store.listLayers(env, i.id)))));
  },
  async create(r: AuthedRequest, env: Env) {
    const input = validate(instanceSchema, await readJson(r), "WMS instance");
    await checkLayers(env, accountOf(r), input.layers);
    return instanceResponse(env, await store.createInstance(env, accountOf(r), input), 201);
  },
  get: async (r: AuthedRequest, env: Env) => instanceResponse(env, await ownInstance(r, env)),
  async update(r: AuthedRequest, env: Env) {
    const inst = await ownInstance(r, env);
    const input = validate(instanceSchema, await readJson(r), "WMS instance");
    await checkLayers(env, accountOf(r), input.layers);
    await store.updateInstance(env, inst.id, input);
    return instanceResponse(env, (await store.getInstance(env, inst.account, inst.id))!);
  },
  async remove(r: AuthedRequest, env: Env) {
    await store.deleteInstance(env, (await ownInstance(r, env)).id);
    return new Response(null, { status: 204 });
  },
  async layers(r: AuthedRequest, env: Env) {
    const inst = await ownInstance(r, env);
    return json(await Promise.all((await store.listLayers(env, inst.id)).map((l) => layerJson(env, inst, l))));
  },
  async createLayer(r: AuthedRequest, env: Env) {
    const inst = await ownInstance(r, env);
    const layer = validate(layerSchema, await readJson(r), "WMS layer");
    await checkLayers(env, accountOf(r), [layer], "");
    if (await store.getLayer(env, inst.id, layer.id))
      throw new ApiError(409, `Layer '${layer.id}' already exists in this instance; PUT it to replace it.`);
    await store.putLayer(env, inst.id, layer);
    return json(await layerJson(env, inst, layer), 201);
  },
  async layer(r: AuthedRequest, env: Env) {
    const inst = await ownInstance(r, env);
    return json(await layerJson(env, inst, await layerOf(r, env, inst.id)));
  },
  async updateLayer(r: AuthedRequest, env: Env) {
    const inst = await ownInstance(r, env);
    await layerOf(r, env, inst.id);
    const layer = validate(layerSchema, { ...((await readJson(r)) as object), id: param(r, "layerId") }, "WMS layer");
    await checkLayers(env, accountOf(r), [layer], "");
    await store.putLayer(env, inst.id, layer);
    return json(await layerJson(env, inst, layer));
  },
  async removeLayer(r: AuthedRequest, env: Env) {
    const inst = await ownInstance(r, env);
    if (!(await store.deleteLayer(env, inst.id, param(r, "layerId"))))
      throw notFound(`Layer '${param(r, "layerId")}' not found in WMS instance '${inst.id}'.`);
    return new Response(null, { status: 204 });
  },
};

/** Registers `/configuration/v1/wms/instances[/{instanceId}[/layers[/{layerId}]]]` (GET/POST/PUT/DELETE). */
export function registerConfiguration(api: Api): void {
  const one = `${INSTANCES_PATH}/:instanceId`;
  const layer = `${one}/layers/:layerId`;
  const tag = { tags: ["Configuration (WMS instances)"] };
  api
    .on("GET", INSTANCES_PATH, handlers.list, { ...tag, summary: "List WMS instances" })
    .on("POST", INSTANCES_PATH, handlers.create, {
      ...tag,
      summary: "Create a WMS instance",
      body: instanceSchema,
      status: 201,
    })
    .on("GET", one, handlers.get, { ...tag, summary: "One WMS instance" })
    .on("PUT", one, handlers.update, { ...tag, summary: "Replace a WMS instance", body: instanceSchema })
    .on("DELETE", one, handlers.remove, { ...tag, summary: "Delete a WMS instance", status: 204 })
    .on("GET", `${one}/layers`, handlers.layers, { ...tag, summary: "Layers of an instance" })
    .on("POST", `${one}/layers`, handlers.createLayer, {
      ...tag,
      summary: "Add a layer",
      body: layerSchema,
      status: 201,
    })
    .on("GET", layer, handlers.layer, { ...tag, summary: "One layer" })
    .on("PUT", layer, handlers.updateLayer, { ...tag, summary: "Replace a layer", body: layerSchema })
    .on("DELETE", layer, handlers.removeLayer, { ...tag, summary: "Delete a layer", status: 204 });
}
