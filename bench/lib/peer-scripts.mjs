// The evalscripts of the peer table (bench/bench-peers.mjs) and of bench/profile-request.mjs: true colour (B04, B03,
// B02 x 2.5) and one band (B08 x 2.5), as 8-bit PNG bands, what bench/bench_peers.py renders with GDAL and MapServer.
export const PEER_SCRIPTS = {
  "true colour": `//VERSION=3
function setup(){return {input:["B02","B03","B04"],output:{bands:3}}}
function evaluatePixel(s){return [2.5*s.B04,2.5*s.B03,2.5*s.B02]}`,
  B08: `//VERSION=3
function setup(){return {input:["B08"],output:{bands:1}}}
function evaluatePixel(s){return [2.5*s.B08]}`,
};
