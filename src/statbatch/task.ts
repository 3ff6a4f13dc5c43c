/**
 * The JSON of a Statistical Batch task (OpenAPI `BatchStatisticsTaskDto`) and of its status
 * (`BatchStatisticsTaskStatusDto`). `costPU` is also written `costPu` (the spec gives both spellings; sentinelhub-py
 * reads costPU). PARTIAL is served as the spec says, although older sentinelhub-py versions do not know it.
 */
import type { TaskView } from "./object";
import type { BatchStatisticalRequest } from "./schema";

/** Percent of the features finished (done or failed), two decimals; 100 for a DONE task. */
export function completionPercentage(v: Pick<TaskView, "total" | "done" | "failed" | "state">): number {
  if (v.total === 0) return v.state === "DONE" ? 100 : 0;
  return Math.round(((v.done + v.failed) / v.total) * 10_000) / 100;
}

/** `BatchStatisticsTaskStatusDto`. */
export function statusJson(v: TaskView): Record<string, unknown> {
  const cost = Math.round(v.pu * 1e6) / 1e6;
  return {
    id: v.id,
    status: v.state,
    ...(v.error ? { error: v.error } : {}),
    completionPercentage: completionPercentage(v),
    lastUpdated: v.lastUpdated,
    costPU: cost,
    costPu: cost,
    created: v.created,
    ...(v.stoppedStatusReason ? { stoppedStatusReason: v.stoppedStatusReason } : {}),
  };
}

/** A descriptor without its secret key. */
const redactS3 = <T extends { s3: { secretAccessKey?: string } }>(d: T): T => {
  const { secretAccessKey: _secret, ...s3 } = d.s3;
  return { ...d, s3 };
};

/** The request as the task shows it: secret access keys left out. */
export function shownRequest(req: BatchStatisticalRequest): BatchStatisticalRequest {
  const ref = req.aggregation.evalscriptReference;
  return {
    ...req,
    input: { ...req.input, features: redactS3(req.input.features) },
    aggregation: ref ? { ...req.aggregation, evalscriptReference: redactS3(ref) } : req.aggregation,
    output: redactS3(req.output),
  };
}

/** `BatchStatisticsTaskDto`: the status plus request, user action and the account (domainAccountId = projectId). */
export function taskJson(v: TaskView): Record<string, unknown> {
  return {
    ...statusJson(v),
    request: shownRequest(v.request),
    userAction: v.userAction,
    ...(v.userActionUpdated ? { userActionUpdated: v.userActionUpdated } : {}),
    domainAccountId: v.account,
    projectId: v.account,
  };
}
