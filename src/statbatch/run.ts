/**
 * The work of a Statistical Batch task, run by the queue consumer (kinds registered in src/tasks/kinds.ts):
 * - `statbatch-analyse` {task}: reads the GeoPackage's features and validates the evalscript against the
 *   calculations (the sync API's checks); an unreadable GeoPackage or a bad script FAILS the task with `error`.
 *   When the user asked to START, the features are enqueued next.
 * - `statbatch-feature` {task, fid}: one feature = one synchronous Statistical API request over the feature's
 *   geometry (computeStatistics, the sync API's own code path), written as JSON `{id, identifier, response}` to the
 *   feature's output location (./schema.ts featureOutput); a feature the request rejects (a 4xx) is written as
 *   `{id, identifier, error: {type, message}}` and counted failed. Other failures are retried by the queue
 *   (bounded by max_retries); a dead letter counts the feature failed (onDead).
 * A message for a task that is not PROCESSING (stopped) is acked without work: START enqueues pending features again.
 * The analysis and each feature run as leased units of the task's object ({@link analysisUnit}, {@link featureUnit}):
 * one lost with its message or its Worker is sent again when its lease expires (./object.ts puts them).
 */
import type { Env } from "../env";
import { resolveBucket } from "../buckets";
import { readScriptObject } from "../buckets/script";
import { ApiError, badRequest, EXECUTION_ERROR, kindedError } from "../http/errors";
import { prepareEvalscript } from "../pipeline/pipeline";
import { computeStatistics } from "../stats/aggregate";
import { checkSetup } from "../stats/setup";
import type { TaskMessage } from "../tasks/queue";
import { sendMessages } from "../tasks/runner";
import type { UnitRef } from "../tasks/runner";
import { asLocation } from "../locations/hosting";
import { FeaturesError, readFeatures } from "./features";
import type { FeatureJob, StatisticalBatchTask } from "./object";
import { featureOutput, featureRequest, type BatchStatisticalRequest } from "./schema";

export const STATBATCH_ANALYSE_KIND = "statbatch-analyse";
export const STATBATCH_FEATURE_KIND = "statbatch-feature";

/** The RPC surface of a task object, as the Worker calls it (the request's passthrough members defeat Rpc's typing). */
type Rpc<T> = { [K in keyof T]: T[K] extends (...a: infer A) => infer R ? (...a: A) => Promise<Awaited<R>> : never };
export type StatBatchStub = Rpc<Pick<StatisticalBatchTask, "create" | "view" | "act" | "analysed" | "fail" | "pendingFeatures" | "job" | "finishFeature">>;

/** The Durable Object of task `id`. */
export const statbatchStub = (env: Pick<Env, "STATBATCH_TASKS">, id: string): StatBatchStub =>
  env.STATBATCH_TASKS.get(env.STATBATCH_TASKS.idFromName(id)) as unknown as StatBatchStub;

/** The analysis of a task, and each of its features, is a leased unit of its object (src/tasks/lease.ts): their ids. */
export const ANALYSIS_UNIT = "analyse";
export const featureUnitId = (fid: number): string => `f:${fid}`;

/** The messages of the analysis and of feature `fid` of task `taskId`. */
export const analysisMessage = (taskId: string): TaskMessage => ({ kind: STATBATCH_ANALYSE_KIND, task: taskId });
export const featureMessage = (taskId: string, fid: number): TaskMessage => ({ kind: STATBATCH_FEATURE_KIND, task: taskId, fid });

/** The task object as a holder of leased units. */
const unitsOf = (env: Pick<Env, "STATBATCH_TASKS">, id: string) => env.STATBATCH_TASKS.get(env.STATBATCH_TASKS.idFromName(id));

/** The leased unit of a `statbatch-analyse` message (the kind's `lease`). */
export const analysisUnit = (body: TaskMessage, env: Env): UnitRef | null => (typeof body.task === "string" ? { stub: unitsOf(env, body.task), unit: ANALYSIS_UNIT } : null);

/** The leased unit of a `statbatch-feature` message (the kind's `lease`). */
export const featureUnit = (body: TaskMessage, env: Env): UnitRef | null =>
  typeof body.task === "string" && typeof body.fid === "number" ? { stub: unitsOf(env, body.task), unit: featureUnitId(body.fid) } : null;

/** Enqueues the analysis of task `taskId`. */
export async function enqueueAnalysis(env: Pick<Env, "TASK_QUEUE">, taskId: string): Promise<void> {
  await env.TASK_QUEUE.send(analysisMessage(taskId));
}

/** Sends one `statbatch-feature` message per feature id. */
export async function sendFeatureMessages(env: Pick<Env, "TASK_QUEUE">, taskId: string, fids: readonly number[]): Promise<void> {
  await sendMessages(env, fids.map((fid) => featureMessage(taskId, fid)));
}

/** Enqueues one `statbatch-feature` message per pending feature of task `taskId`. */
export async function enqueueFeatures(env: Pick<Env, "TASK_QUEUE" | "STATBATCH_TASKS">, taskId: string): Promise<void> {
  const stub = statbatchStub(env, taskId);
  for (let after = Number.MIN_SAFE_INTEGER; ; ) {
    const fids = await stub.pendingFeatures(after, 1000);
    if (fids.length === 0) return;
    await sendFeatureMessages(env, taskId, fids);
    after = fids[fids.length - 1]!;
  }
}

/**
 * The evalscript text: `aggregation.evalscript`, or the object `evalscriptReference.s3.url` names, read as the
 * task's `account`. @throws EngineError invalid-argument (400) when missing; BucketAccessDenied (403).
 */
async function evalscriptOf(env: Env, account: string, req: BatchStatisticalRequest): Promise<string> {
  if (req.aggregation.evalscript !== undefined) return req.aggregation.evalscript;
  return readScriptObject(env, account, req.aggregation.evalscriptReference!.s3, "aggregation.evalscriptReference");
}

/** A failure the client caused (bad GeoPackage, script, request): the ApiError it renders as, else undefined. */
function clientError(e: unknown): ApiError | undefined {
  if (e instanceof FeaturesError) return badRequest(e.message);
  const api = e instanceof ApiError ? e : kindedError(e);
  return api && api.status < 500 ? api : undefined;
}

const taskOf = (body: TaskMessage): string => {
  if (typeof body.task !== "string" || body.task === "") throw new Error("statistical batch message without a task id");
  return body.task;
};

/** `statbatch-analyse`: see the module comment. Throws (retried) on other failures, e.g. storage. */
export async function statbatchAnalyse(body: TaskMessage, env: Env, message: Message<unknown>): Promise<void> {
  const taskId = taskOf(body);
  const stub = statbatchStub(env, taskId);
  const task = await stub.view();
  if (!task || task.state !== "ANALYSING") return;
  let features;
  try {
    features = await readFeatures(env, task.account, task.request.input.features.s3);
    const script = await prepareEvalscript(env, await evalscriptOf(env, task.account, task.request), task.account);
    checkSetup(script.setup, featureRequest(task.request, { geometry: features[0]!.geometry, properties: { crs: features[0]!.crs } }, "-").calculations);
  } catch (e) {
    const client = clientError(e);
    if (!client) throw e;
    await stub.fail(client.message);
    return;
  }
  if (await stub.analysed(message.id, features)) await enqueueFeatures(env, taskId);
}

/** A dead analysis message (or one whose every attempt was lost: `cause`): the task FAILS. */
export async function statbatchDeadAnalysis(body: TaskMessage, env: Env, _message: Message<unknown>, cause?: string): Promise<void> {
  await statbatchStub(env, taskOf(body)).fail(`${cause ?? "The analysis failed repeatedly (storage or internal error)."} Start the task again.`);
}

/** The file written for a feature: the Statistical API response, or the error that stopped it. */
export type FeatureResult =
  | { id: number; identifier?: string; response: unknown }
  | { id: number; identifier?: string; error: { type: "BAD_REQUEST" | "EXECUTION_ERROR"; message: string } };

/** Computes one feature: its result file, whether it failed, and its cost in processing units. Throws on non-client failures. */
async function computeFeature(env: Env, job: FeatureJob): Promise<{ result: FeatureResult; failed: boolean; pu: number }> {
  const { id, identifier } = job.feature;
  try {
    const bounds = { geometry: job.feature.geometry, properties: { crs: job.feature.crs } };
    const req = featureRequest(job.request, bounds, await evalscriptOf(env, job.account, job.request));
    const r = await computeStatistics(env, req, job.account);
    return { result: { id, identifier, response: r.response }, failed: r.response.status === "FAILED", pu: r.processingUnits };
  } catch (e) {
    const client = clientError(e);
    if (!client) throw e;
    const type = client.code === EXECUTION_ERROR ? "EXECUTION_ERROR" : "BAD_REQUEST";
    return { result: { id, identifier, error: { type, message: client.message } }, failed: true, pu: 0 };
  }
}

/** Writes a feature's result file where the task's output template puts it, as the task's account. */
async function writeResult(env: Env, job: FeatureJob, result: FeatureResult): Promise<void> {
  const loc = await resolveBucket(env, job.account, featureOutput(job.request.output.s3, job.taskId, job.feature));
  await loc.store.put(loc.prefix, JSON.stringify(result), { contentType: "application/json" });
}

/** The job of a feature message, or null when there is nothing to do (unknown, finished, task not PROCESSING). */
async function jobOf(env: Env, body: TaskMessage): Promise<FeatureJob | null> {
  if (typeof body.fid !== "number") throw new Error("statistical batch feature message without fid");
  const job = await statbatchStub(env, taskOf(body)).job(body.fid);
  return job && !job.finished && job.state === "PROCESSING" ? job : null;
}

/** `statbatch-feature`: see the module comment. */
export async function statbatchFeature(body: TaskMessage, env: Env): Promise<void> {
  const job = await jobOf(env, body);
  if (!job) return;
  const { result, failed, pu } = await computeFeature(asLocation(env, job.location), job);
  await writeResult(env, job, result);
  await statbatchStub(env, job.taskId).finishFeature(job.feature.id, failed, pu);
}

/** A dead feature message (or one whose every attempt was lost: `cause`): the feature is written as EXECUTION_ERROR and counted failed. */
export async function statbatchDeadFeature(body: TaskMessage, env: Env, _message: Message<unknown>, cause?: string): Promise<void> {
  const job = await jobOf(env, body);
  if (!job) return;
  const error = { type: "EXECUTION_ERROR" as const, message: cause ?? "The feature failed on every attempt (storage or internal error; see the service log)." };
  // the failure may be the output location itself (e.g. an identifier no bucket key allows): count the feature anyway
  await writeResult(env, job, { id: job.feature.id, identifier: job.feature.identifier, error }).catch((e) =>
    console.error(`statistical batch ${job.taskId}: the error file of feature ${job.feature.id} cannot be written:`, String(e).slice(0, 300)),
  );
  await statbatchStub(env, job.taskId).finishFeature(job.feature.id, true, 0);
}
