/** Queue message kinds of Batch Processing v2 (registered in src/tasks/kinds.ts). */

/** `{kind, task}`: analyse task `task` (list its tiles, estimate its cost). */
export const ANALYSE_KIND = "batch-analyse";
/** `{kind, task, tile}`: process tile `tile` of task `task` and deliver its outputs. */
export const TILE_KIND = "batch-tile";

/** Tries of a tile before it is marked FAILED (the queue's own retries and dead-letter queue bound it too). */
export const MAX_TILE_ATTEMPTS = 3;

/** The ids of a task's leased units (src/tasks/lease.ts) in its object: the analysis and each tile. */
export const ANALYSIS_UNIT = "analyse";
export const tileUnitId = (tile: string): string => `tile:${tile}`;
