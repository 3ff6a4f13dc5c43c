/**
 * Processing-unit charges carried by the account's next limiter call: one Durable Object call per metered request.
 *
 * A metered request learns its cost only once it has run, after its rate-limit decision. Instead of a second call
 * to the account's RateLimiter, its charge waits in this isolate (per account) and rides on the next call this
 * isolate makes to that object anyway: the next request's decision (RateLimiter.take) or an account's usage
 * (RateLimiter.usage), which apply the carried charges before they decide. Under load, the calls that matter,
 * every request of a busy account makes exactly one call. A charge that no call has carried within CARRY_MS is
 * sent on its own (RateLimiter.chargeAll, with every charge of the account still waiting) by
 * src/accounts/units.ts chargeLater, from `ctx.waitUntil`, so a quiet account's charges land within about
 * CARRY_MS of the response.
 *
 * Exactly once: every charge has an id that the object counts once (its table `charges`, RateLimiter.applyCharges).
 * A call that fails (its answer lost, the charges landed or not) puts its charges back to wait, and they are sent
 * again under the same ids. A decision (RateLimiter.take) counts the charges it carries at once but writes them
 * just after it answers (so that the answer does not wait for the write): they are `carried` until a later call
 * names them written (LimitVerdict.landed) or a chargeAll / usage call (which writes before it answers) carries
 * them again; until then they ride on every call, and the object counts an id once whatever the number of rides.
 */
/** A charge of `pu` processing units, counted once per id. */
export interface Charge {
  id: string;
  pu: number;
}

/** How long a charge waits for another call to carry it before it is sent on its own, in ms. */
export const CARRY_MS = 250;

/** How often the owner of a charge carried by another call looks whether it landed, in ms. */
export const POLL_MS = 20;

/**
 * A charge waiting in this isolate: `waiting` until a call takes it, `sent` while that call runs, `landed` after
 * (back to `waiting` when the call failed; `carried` when a decision counted it but has not yet written it). Its owner polls the state: a promise resolved by another request's
 * call would run the owner's continuation in that request's I/O context, which workerd refuses.
 */
export interface Waiting extends Charge {
  state: "waiting" | "sent" | "carried" | "landed";
  /** When it became `carried` (ms since epoch): it waits up to CARRY_MS more for a later call to confirm it. */
  carriedAt?: number;
}

/** Charges not yet landed, per account. */
const waiting = new Map<string, Set<Waiting>>();

/**
 * The charges of `account` waiting to be carried, handed to one call: `charges` to send (marked sent), and
 * `settle(call)` to give the call's promise (its success lands them, or for a decision the ones it names written
 * and the others become `carried`; its failure puts them back to wait).
 * Empty when none waits.
 */
export function takeCharges(account: string): { charges: Charge[]; settle<T>(call: Promise<T>): Promise<T> } {
  const mine = [...(waiting.get(account) ?? [])].filter((w) => w.state === "waiting" || w.state === "carried");
  if (mine.length === 0) return { charges: [], settle: (call) => call };
  for (const w of mine) w.state = "sent";
  return {
    charges: mine.map(({ id, pu }) => ({ id, pu })),
    settle(call) {
      call.then(
        (answer) => {
          // a decision names the ids written; others it counted and writes after answering
          const written = (answer as { landed?: string[] } | undefined)?.landed;
          for (const w of mine)
            if (!written || written.includes(w.id)) landed(account, w);
            else [w.state, w.carriedAt] = ["carried", Date.now()];
        },
        () => mine.forEach((w) => (w.state = "waiting")),
      );
      return call;
    },
  };
}

/** Adds a charge of `pu` units (a new id) to the ones of `account` waiting to be carried. */
export function addCharge(account: string, pu: number): Waiting {
  const w: Waiting = { id: crypto.randomUUID(), pu, state: "waiting" };
  let set = waiting.get(account);
  if (!set) waiting.set(account, (set = new Set()));
  set.add(w);
  return w;
}

/** Marks `w` landed and forgets it. */
function landed(account: string, w: Waiting): void {
  w.state = "landed";
  forget(account, w);
}

/** Drops `w` from the charges waiting (landed, or given up). */
export function forget(account: string, w: Waiting): void {
  const set = waiting.get(account);
  set?.delete(w);
  if (set?.size === 0) waiting.delete(account);
}
