/**
 * JSON shapes of the Configuration API (Sentinel Hub `/configuration/v1/wms/instances[/{id}[/layers[/{layerId}]]]`):
 * an instance `{"@id", id, name, description, userId, additionalData, created, updated, layers: [{"@id"}]}`,
 * a layer `{"@id", id, title, description, styles, defaultStyleName, orderHint, instance: {"@id"}, dataset: {"@id"},
 * datasourceDefaults}` (the shape sentinelhub-js's fetchLayerParamsFromConfigurationService reads).
 */
import type { LayerInput } from "./schema";
import type { StoredInstance } from "./store";

export const INSTANCES_PATH = "/configuration/v1/wms/instances";

/** Absolute URL of instance `id` under base URL `base`. */
export const instanceUrl = (base: string, id: string): string => `${base}${INSTANCES_PATH}/${encodeURIComponent(id)}`;

/** A layer as the Configuration API returns it. */
export function renderLayer(base: string, instanceId: string, l: LayerInput, dataset: string): Record<string, unknown> {
  const at = instanceUrl(base, instanceId);
  return {
    "@id": `${at}/layers/${encodeURIComponent(l.id)}`,
    id: l.id,
    title: l.title ?? l.id,
    description: l.description ?? "",
    styles: l.styles,
    defaultStyleName: l.defaultStyleName ?? l.styles[0]!.name,
    orderHint: l.orderHint ?? 0,
    instance: { "@id": at },
    dataset: { "@id": `${base}/configuration/v1/datasets/${encodeURIComponent(dataset)}` },
    datasourceDefaults: l.datasourceDefaults,
  };
}

/** An instance as the Configuration API returns it, with links to its layers. */
export function renderInstance(base: string, inst: StoredInstance, layers: LayerInput[]): Record<string, unknown> {
  const at = instanceUrl(base, inst.id);
  return {
    "@id": at,
    id: inst.id,
    name: inst.body.name,
    description: inst.body.description ?? "",
    userId: inst.account,
    additionalData: inst.body.additionalData ?? {},
    created: inst.created,
    updated: inst.updated,
    layers: layers.map((l) => ({ "@id": `${at}/layers/${encodeURIComponent(l.id)}` })),
  };
}
