/**
 * The Durable Object class bound as `UNITS` (wrangler.toml): leased units of work (./lease.ts) of work that has no
 * task object of its own, with their watchdog (./leased.ts). One object per owner of such work, by name: BYOC
 * ingestion keeps one per collection (`byoc:<collection id>`, a unit per tile), Zarr ingestion one per collection
 * (`zarr:<collection id>`). The state the API shows stays where it was (D1 rows); the object only makes sure every
 * unit ends, resumed after a lost message or a killed Worker, or dead-lettered with a cause.
 */
import { LeasedObject } from "./leased";

/** (Its stubs: unitsStub in ./runner.ts, which Node scripts can import: this module needs cloudflare:workers.) */
export class UnitObject extends LeasedObject {}
