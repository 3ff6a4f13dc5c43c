// The strips of the Statistical API bench's 29RKH request as the host path's evaluateRows loads them, shared by
// bench/bench-stats-engine.mjs (node) and bench/stats.workerd.ts (workerd).

/**
 * evaluateRows' input and strip loader over full-grid arrays (w x w px): the dataMask bytes and the B04, B08 and
 * SCL bands (Float32, reflectance and classes); rows per strip as src/pipeline/pipeline.ts stripRows makes them
 * (STRIP_TARGET 2^19 px, at most SANDBOX_BLOCK_BYTES `blockBytes` of 3 bands + dataMask).
 */
export function stripInput(w, blockBytes, { mask, b04, b08, scl }) {
  const rows = Math.max(1, Math.min(Math.ceil(2 ** 19 / w), Math.floor(blockBytes / (w * 4 * 4))));
  const scenes = (row, count) => {
    const s = row * w,
      e = (row + count) * w;
    return [
      {
        info: { id: "s", date: "2020-02-19T00:00:00Z" },
        dataMask: mask.subarray(s, e),
        bands: { B04: b04.subarray(s, e), B08: b08.subarray(s, e), SCL: scl.subarray(s, e) },
      },
    ];
  };
  const input = {
    width: w,
    height: w,
    rows,
    scenes: [{ info: { id: "s", date: "" } }],
    timeRange: { from: "", to: "" },
  };
  return { input, load: async (row, count) => scenes(row, count) };
}
