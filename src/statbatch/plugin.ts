/**
 * Statistical Batch as a plug-in of the task engine (src/tasks/plugin.ts):
 * - plan: reads the GeoPackage's features (./features.ts) and checks the evalscript against the calculations (the
 *   sync API's checks); an unreadable GeoPackage or a bad script FAILS the task with `error`. One unit per feature.
 * - run: one feature = one synchronous Statistical API request over the feature's geometry (computeStatistics, the
 *   sync API's own code path), written as JSON `{id, identifier, response}` to the feature's output location
 *   (./schema.ts featureOutput); a feature the request rejects (a 4xx), or whose response is FAILED, is written as
 *   `{id, identifier, error: {type, message}}` (or its response) and counted failed. The engine ends the task DONE,
 *   PARTIAL (some failed) or FAILED (all failed).
 * - dead: a feature given up is written as EXECUTION_ERROR with the cause.
 * Its API (the views, user actions) is ./routes.ts.
 */
import type { Env } from "../env";
import { resolveBucket } from "../buckets";
import { readScriptObject } from "../buckets/script";
import { badRequest, EXECUTION_ERROR } from "../http/errors";
import { prepareEvalscript } from "../pipeline/pipeline";
import { computeStatistics } from "../stats/aggregate";
import { checkSetup } from "../stats/setup";
import { STATISTICAL_BATCH_MACHINE } from "../tasks/machines";
import type { Task, TaskPlugin } from "../tasks/plugin";
import { clientError } from "../tasks/work";
import { FeaturesError, readFeatures, type BatchFeature } from "./features";
import { featureOutput, featureRequest, type BatchStatisticalRequest } from "./schema";

type StatTask = Task<BatchStatisticalRequest>;

/**
 * The evalscript text: `aggregation.evalscript`, or the object `evalscriptReference.s3.url` names, read as the
 * task's `account`. @throws EngineError invalid-argument (400) when missing; BucketAccessDenied (403).
 */
async function evalscriptOf(env: Env, account: string, req: BatchStatisticalRequest): Promise<string> {
  if (req.aggregation.evalscript !== undefined) return req.aggregation.evalscript;
  return readScriptObject(env, account, req.aggregation.evalscriptReference!.s3, "aggregation.evalscriptReference");
}

/** The features of a task, its script checked against them. @throws ApiError 400 for a bad GeoPackage or script. */
async function plan(env: Env, task: StatTask) {
  const features = await readFeatures(env, task.account, task.request.input.features.s3).catch((e: unknown) => {
    throw e instanceof FeaturesError ? badRequest(e.message) : e;
  });
  const script = await prepareEvalscript(env, await evalscriptOf(env, task.account, task.request), task.account);
  checkSetup(
    script.setup,
    featureRequest(task.request, { geometry: features[0]!.geometry, properties: { crs: features[0]!.crs } }, "-")
      .calculations,
  );
  return { units: features.map((f) => ({ id: String(f.id), data: f })), estimatePU: null };
}

/** The file written for a feature: the Statistical API response, or the error that stopped it. */
export type FeatureResult =
  | { id: number; identifier?: string; response: unknown }
  | { id: number; identifier?: string; error: { type: "BAD_REQUEST" | "EXECUTION_ERROR"; message: string } };

/** Writes a feature's result file where the task's output template puts it, as the task's account. */
async function writeResult(env: Env, task: StatTask, feature: BatchFeature, result: FeatureResult): Promise<void> {
  const loc = await resolveBucket(env, task.account, featureOutput(task.request.output.s3, task.id, feature));
  await loc.store.put(loc.prefix, JSON.stringify(result), { contentType: "application/json" });
}

/** Computes and writes one feature; `error` when it failed. Throws (retried) on failures that are not the client's. */
async function run(env: Env, task: StatTask, feature: BatchFeature) {
  const { id, identifier } = feature;
  try {
    const bounds = { geometry: feature.geometry, properties: { crs: feature.crs } };
    const r = await computeStatistics(
      env,
      featureRequest(task.request, bounds, await evalscriptOf(env, task.account, task.request)),
      task.account,
    );
    await writeResult(env, task, feature, { id, identifier, response: r.response });
    return {
      pu: r.processingUnits,
      ...(r.response.status === "FAILED" ? { error: `Feature ${id}: every interval failed.` } : {}),
    };
  } catch (e) {
    const client = clientError(e);
    if (!client) throw e;
    const type = client.code === EXECUTION_ERROR ? "EXECUTION_ERROR" : "BAD_REQUEST";
    await writeResult(env, task, feature, { id, identifier, error: { type, message: client.message } });
    return { pu: 0, error: client.message };
  }
}

/** A feature given up: its error file (EXECUTION_ERROR with the cause), unless its output location is what fails. */
async function dead(env: Env, task: StatTask, unit: { data: BatchFeature }, cause: string): Promise<void> {
  const f = unit.data;
  await writeResult(env, task, f, {
    id: f.id,
    identifier: f.identifier,
    error: { type: "EXECUTION_ERROR", message: cause },
  }).catch((e) =>
    console.error(
      `statistical batch ${task.id}: the error file of feature ${f.id} cannot be written:`,
      String(e).slice(0, 300),
    ),
  );
}

export const statbatchPlugin: TaskPlugin<BatchStatisticalRequest, BatchFeature> = {
  kind: "statbatch",
  machine: STATISTICAL_BATCH_MACHINE,
  queue: "light",
  namespace: (env) => env.STATBATCH_TASKS,
  plan,
  run: (env, task, unit) => run(env, task, unit.data),
  dead,
};
