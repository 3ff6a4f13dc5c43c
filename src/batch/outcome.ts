/** Results of user actions on a batch task that may be refused (crossing RPC as data, mapped to 4xx by the routes). */
import { ApiError } from "../http/errors";

export type Refusal = { ok: false; status: number; message: string };
export type Outcome<T> = { ok: true; value: T } | Refusal;

/** A refusal with an HTTP status (4xx) and a message naming the task's state. */
export const refuse = (status: number, message: string): Refusal => ({ ok: false, status, message });

/** The value of an outcome. @throws ApiError with the refusal's status and message. */
export function accepted<T>(o: Outcome<T>): T {
  if (!o.ok) throw new ApiError(o.status, o.message);
  return o.value;
}
