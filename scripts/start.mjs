// `npm start`: apply D1 migrations, seed local D1/R2 with data/ (idempotent), then serve two locations side by side
// and print the demo credentials. State lives in $EO_EDGE_STATE (default .state).
//
// Locations (src/locations/): one wrangler dev Worker (one D1, R2, Durable Objects and queue: one coherent state)
// answers on two addresses: http://127.0.0.1:$PORT (default 8787) is location `aws-eu-central-1` (the primary,
// hosting Sentinel-2 L1C/L2A) and http://127.0.0.1:$PORT2 (default PORT+1) is location `creo` (hosting Sentinel-1
// GRD). PORT2 is a plain TCP forward to PORT; the Worker serves a request as the location whose configured URL
// it was sent to (LOCATIONS). Tokens from either address work at both (one issuer, as Sentinel Hub's one login).
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { join, resolve } from "node:path";

const persist = resolve(process.env.EO_EDGE_STATE ?? ".state");
const port = process.env.PORT ?? "8787";
const port2 = process.env.PORT2 ?? String(Number(port) + 1);
const env = { ...process.env, WRANGLER_SEND_METRICS: "false" };

/**
 * The S3 endpoint's keys: $S3_ACCESS_KEY_ID/$S3_SECRET_ACCESS_KEY when both are set, else demo keys made once per
 * state directory and kept in <persist>/demo-s3-keys.json.
 */
function s3Keys() {
  if (process.env.S3_ACCESS_KEY_ID && process.env.S3_SECRET_ACCESS_KEY)
    return { accessKeyId: process.env.S3_ACCESS_KEY_ID, secretAccessKey: process.env.S3_SECRET_ACCESS_KEY };
  const file = join(persist, "demo-s3-keys.json");
  if (!existsSync(file)) {
    const keys = { accessKeyId: `EOEDGE${randomBytes(7).toString("hex").toUpperCase()}`, secretAccessKey: randomBytes(30).toString("base64url") };
    writeFileSync(file, JSON.stringify(keys, null, 2) + "\n", { mode: 0o600 });
  }
  return JSON.parse(readFileSync(file, "utf8"));
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: "inherit", env });
  if (r.status !== 0) {
    console.error(`\n${cmd} ${args.join(" ")} failed (exit ${r.status})`);
    process.exit(r.status ?? 1);
  }
}

run("npx", ["wrangler", "d1", "migrations", "apply", "eo-edge", "--local", "--persist-to", persist]);
run("npx", ["tsx", "--import", "./scripts/lib/wasm-register.mjs", "scripts/seed.ts", persist]);
// The second location hosts Sentinel-1 GRD (the registry's location; null = the primary location)
const HOSTED = "UPDATE data_collections SET location = 'creo' WHERE id = 'sentinel-1-grd'";
run("npx", ["wrangler", "d1", "execute", "eo-edge", "--local", "--persist-to", persist, "--command", HOSTED]);

const demo = JSON.parse(readFileSync(join(persist, "demo-client.json"), "utf8"));
const s3 = s3Keys();
const base = `http://127.0.0.1:${port}`;
const base2 = `http://127.0.0.1:${port2}`;
const locations = JSON.stringify([{ id: "aws-eu-central-1", url: base }, { id: "creo", url: base2 }]);
// PUBLIC_BASE_URL (token issuer and links) is the primary location's address
// S3_*: the keys of the S3 endpoint (src/s3)
const vars = [`PUBLIC_BASE_URL:${base}`, "LOCATION_ID:aws-eu-central-1", `LOCATIONS:${locations}`, `S3_ACCESS_KEY_ID:${s3.accessKeyId}`, `S3_SECRET_ACCESS_KEY:${s3.secretAccessKey}`].flatMap((v) => ["--var", v]);
const devArgs = ["wrangler", "dev", "--ip", "127.0.0.1", "--port", port, "--persist-to", persist, ...vars];
const dev = spawn("npx", devArgs, { stdio: ["inherit", "pipe", "inherit"], env });

// The second location's address: every connection piped to the Worker's port unchanged (the Host header names PORT2)
const forward = createServer((client) => {
  const upstream = createConnection({ host: "127.0.0.1", port: Number(port) });
  client.pipe(upstream).pipe(client);
  const close = () => (client.destroy(), upstream.destroy());
  client.on("error", close);
  upstream.on("error", close);
});
forward.listen(Number(port2), "127.0.0.1");
let announced = false;
dev.stdout.on("data", (chunk) => {
  process.stdout.write(chunk);
  if (!announced && /Ready on/.test(String(chunk))) {
    announced = true;
    console.log(`
================ EO Edge is running on ${base} ================
Location aws-eu-central-1 (Sentinel-2 L1C/L2A): ${base}
Location creo (Sentinel-1 GRD):                 ${base2}
Demo client id:     ${demo.client_id}
Demo client secret: ${demo.client_secret}
Token URL:          ${base}/auth/realms/main/protocol/openid-connect/token
S3 endpoint:        ${base}/s3   (local buckets; path-style, Signature V4)
S3 access key id:   ${s3.accessKeyId}
S3 secret key:      ${s3.secretAccessKey}
  AWS_ACCESS_KEY_ID=${s3.accessKeyId} AWS_SECRET_ACCESS_KEY=${s3.secretAccessKey} AWS_DEFAULT_REGION=us-east-1 \\
    aws --endpoint-url ${base}/s3 s3 ls s3://my-bucket/

TOKEN=$(curl -s -d grant_type=client_credentials -d client_id=${demo.client_id} -d client_secret=${demo.client_secret} \\
  ${base}/auth/realms/main/protocol/openid-connect/token | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')
curl -s -H "Authorization: Bearer $TOKEN" ${base}/api/v1/metadata/location
curl -s -X POST ${base}/api/v1/process -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -o ndvi.png -d '{
  "input": {"bounds": {"bbox": [-12.0, 24.3, -10.8, 25.3]},
            "data": [{"type": "sentinel-2-l2a", "dataFilter": {"timeRange": {"from": "2020-02-01T00:00:00Z", "to": "2020-03-01T00:00:00Z"}}}]},
  "output": {"width": 512, "height": 512},
  "evalscript": "//VERSION=3\\nfunction setup(){return {input:[\\"B04\\",\\"B08\\",\\"dataMask\\"],output:{bands:4}}}\\nfunction evaluatePixel(s){let n=(s.B08-s.B04)/(s.B08+s.B04);return [n<0.1?1:0.2, n<0.1?0.8:0.6, 0.2, s.dataMask]}"
}'
================================================================
`);
  }
});
const stop = () => (forward.close(), dev.kill("SIGINT"));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
dev.on("exit", (code) => process.exit(code ?? 0));
