/**
 * The isolate's memory admission (src/pipeline/admission.ts) in a runtime shared with other test files.
 */
import { expect, vi } from "vitest";
import { admissionStats, admit, setAdmission, type Permit } from "../../src/pipeline/admission";

/**
 * Waits until no request is in flight in this isolate (other files of a shared runtime may leave one: a streamed
 * body nobody reads holds its share for up to ADMISSION_STALL_MS), then cuts the budget to one byte and takes it,
 * so every unit admitted until the returned permit's release finds no room. `consumerWaitMs` 0: a consumer unit is
 * refused at once.
 */
export async function fillAdmission(): Promise<Permit> {
  await vi.waitFor(() => expect(admissionStats().requests).toBe(0), { timeout: 30_000 });
  setAdmission({ budget: 1, consumerWaitMs: 0 });
  return admit(1, 0);
}
