/**
 * D1 storage of WMS instances and layers (migrations/0007_wms.sql). Every account-facing lookup takes the account:
 * another account's instance is indistinguishable from a missing one. `instanceById` (no account) serves the OGC
 * endpoints, where the instance id itself is the credential.
 */
import type { Env } from "../../env";
import type { InstanceInput, LayerInput } from "./schema";

/** A stored instance: its id, owner, JSON body (name, description, additionalData) and times (ISO 8601). */
export interface StoredInstance {
  id: string;
  account: string;
  body: Omit<InstanceInput, "layers">;
  created: string;
  updated: string;
}

interface InstanceRow {
  id: string;
  account: string;
  body: string;
  created: string;
  updated: string;
}

const toInstance = (r: InstanceRow): StoredInstance => ({
  id: r.id,
  account: r.account,
  body: JSON.parse(r.body),
  created: r.created,
  updated: r.updated,
});
const bodyOf = ({ layers: _layers, ...rest }: InstanceInput): Omit<InstanceInput, "layers"> => rest;

/** The statements that replace the layers of instance `id` with `layers` (orderHint defaults to the list index). */
function layerStatements(env: Env, id: string, layers: LayerInput[]): D1PreparedStatement[] {
  return [
    env.DB.prepare("DELETE FROM wms_layers WHERE instance_id = ?").bind(id),
    ...layers.map((l, i) => putLayerStatement(env, id, { ...l, orderHint: l.orderHint ?? i })),
  ];
}

const putLayerStatement = (env: Env, instanceId: string, l: LayerInput): D1PreparedStatement =>
  env.DB.prepare("INSERT OR REPLACE INTO wms_layers (instance_id, id, order_hint, body) VALUES (?, ?, ?, ?)").bind(
    instanceId,
    l.id,
    l.orderHint ?? 0,
    JSON.stringify(l),
  );

/** Creates an instance of `account` (with its layers, if any); returns it. */
export async function createInstance(env: Env, account: string, input: InstanceInput): Promise<StoredInstance> {
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  await env.DB.batch([
    env.DB.prepare(
      "INSERT INTO wms_instances (id, account, name, body, created, updated) VALUES (?, ?, ?, ?, ?, ?)",
    ).bind(id, account, input.name, JSON.stringify(bodyOf(input)), now, now),
    ...layerStatements(env, id, input.layers ?? []),
  ]);
  return { id, account, body: bodyOf(input), created: now, updated: now };
}

/** The instances of `account`, oldest first. */
export async function listInstances(env: Env, account: string): Promise<StoredInstance[]> {
  const r = await env.DB.prepare("SELECT * FROM wms_instances WHERE account = ? ORDER BY created, id")
    .bind(account)
    .all<InstanceRow>();
  return r.results.map(toInstance);
}

/** Instance `id` of `account`, or null (missing or another account's). */
export async function getInstance(env: Env, account: string, id: string): Promise<StoredInstance | null> {
  const r = await env.DB.prepare("SELECT * FROM wms_instances WHERE id = ? AND account = ?")
    .bind(id, account)
    .first<InstanceRow>();
  return r ? toInstance(r) : null;
}

/** Instance `id` whoever owns it (OGC endpoints: the id is the credential), or null. */
export async function instanceById(env: Env, id: string): Promise<StoredInstance | null> {
  const r = await env.DB.prepare("SELECT * FROM wms_instances WHERE id = ?").bind(id).first<InstanceRow>();
  return r ? toInstance(r) : null;
}

/** Replaces name/description/additionalData of instance `id` (and its layers when `input.layers` is given). */
export async function updateInstance(env: Env, id: string, input: InstanceInput): Promise<void> {
  await env.DB.batch([
    env.DB.prepare("UPDATE wms_instances SET name = ?, body = ?, updated = ? WHERE id = ?").bind(
      input.name,
      JSON.stringify(bodyOf(input)),
      new Date().toISOString(),
      id,
    ),
    ...(input.layers ? layerStatements(env, id, input.layers) : []),
  ]);
}

/** Deletes instance `id` and its layers. */
export async function deleteInstance(env: Env, id: string): Promise<void> {
  await env.DB.batch([
    env.DB.prepare("DELETE FROM wms_layers WHERE instance_id = ?").bind(id),
    env.DB.prepare("DELETE FROM wms_instances WHERE id = ?").bind(id),
  ]);
}

/** The layers of instance `id` in orderHint order (then id). */
export async function listLayers(env: Env, id: string): Promise<LayerInput[]> {
  const r = await env.DB.prepare("SELECT body FROM wms_layers WHERE instance_id = ? ORDER BY order_hint, id")
    .bind(id)
    .all<{ body: string }>();
  return r.results.map((x) => JSON.parse(x.body) as LayerInput);
}

/** Layer `layerId` of instance `id`, or null. */
export async function getLayer(env: Env, id: string, layerId: string): Promise<LayerInput | null> {
  const r = await env.DB.prepare("SELECT body FROM wms_layers WHERE instance_id = ? AND id = ?")
    .bind(id, layerId)
    .first<{ body: string }>();
  return r ? (JSON.parse(r.body) as LayerInput) : null;
}

/** Creates or replaces layer `layer.id` of instance `id`. */
export async function putLayer(env: Env, id: string, layer: LayerInput): Promise<void> {
  await putLayerStatement(env, id, layer).run();
}

/** Deletes layer `layerId` of instance `id`; false when there was none. */
export async function deleteLayer(env: Env, id: string, layerId: string): Promise<boolean> {
  const r = await env.DB.prepare("DELETE FROM wms_layers WHERE instance_id = ? AND id = ?").bind(id, layerId).run();
  return r.meta.changes > 0;
}
