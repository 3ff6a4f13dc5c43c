// `npm start`: apply D1 migrations, seed local D1/R2 with data/ (idempotent), then serve with wrangler dev
// on 127.0.0.1:$PORT (default 8787) and print the demo credentials. State lives in $EO_EDGE_STATE (default .state).
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const persist = resolve(process.env.EO_EDGE_STATE ?? ".state");
const port = process.env.PORT ?? "8787";
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
run("npx", ["tsx", "scripts/seed.ts", persist]);

const demo = JSON.parse(readFileSync(join(persist, "demo-client.json"), "utf8"));
const s3 = s3Keys();
const base = `http://127.0.0.1:${port}`;
// PUBLIC_BASE_URL (token issuer and links) is this server's own address; S3_*: the keys of the S3 endpoint (src/s3)
const devArgs = ["wrangler", "dev", "--ip", "127.0.0.1", "--port", port, "--persist-to", persist, "--var", `PUBLIC_BASE_URL:${base}`,
  "--var", `S3_ACCESS_KEY_ID:${s3.accessKeyId}`, "--var", `S3_SECRET_ACCESS_KEY:${s3.secretAccessKey}`];
const dev = spawn("npx", devArgs, { stdio: ["inherit", "pipe", "inherit"], env });
let announced = false;
dev.stdout.on("data", (chunk) => {
  process.stdout.write(chunk);
  if (!announced && /Ready on/.test(String(chunk))) {
    announced = true;
    console.log(`
================ EO Edge is running on ${base} ================
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
const stop = () => dev.kill("SIGINT");
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
dev.on("exit", (code) => process.exit(code ?? 0));
