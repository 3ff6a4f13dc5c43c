// `npm run -s credentials`: everything a script needs to reach the service `npm start` serves, as one JSON object:
// {"base_url", "token_url", "client_id", "client_secret", "s3_endpoint", "s3_access_key_id", "s3_secret_access_key",
// "state_dir"} (state_dir: the state folder, for `wrangler ... --local --persist-to`).
// `npm run -s credentials -- --env` prints the same as shell assignments (BASE_URL='...' ...) for
// `eval "$(npm run -s credentials -- --env)"`.
//
// The state folder: $EO_EDGE_STATE, else the one the last `npm start` served, else .state; the addresses: those
// `npm start` recorded in <state>/endpoints.json, else the ones $PORT (default 8787) gives (scripts/lib/local.mjs).
import { currentState, demoClient, demoS3Keys, servedEndpoints } from "./lib/local.mjs";

/** True when process pid exists. */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM";
  }
}

const state = currentState();
const client = demoClient(state);
const served = servedEndpoints(state);
if (!client) {
  const preparing = served.pid !== undefined && alive(served.pid);
  process.stderr.write(
    preparing
      ? `npm start (pid ${served.pid}) is still preparing ${state}: try again once it prints its banner.\n`
      : `No demo client in ${state} yet: run \`npm start\` once (it prepares the state folder and creates it).\n`,
  );
  process.exit(1);
}
const s3 = demoS3Keys(state);
const credentials = {
  base_url: served.base_url,
  token_url: served.token_url,
  client_id: client.client_id,
  client_secret: client.client_secret,
  s3_endpoint: served.s3_endpoint,
  s3_access_key_id: s3.accessKeyId,
  s3_secret_access_key: s3.secretAccessKey,
  state_dir: state,
};
if (process.argv.includes("--env")) {
  const quote = (v) => `'${String(v).replaceAll("'", "'\\''")}'`;
  for (const [k, v] of Object.entries(credentials)) process.stdout.write(`${k.toUpperCase()}=${quote(v)}\n`);
} else {
  process.stdout.write(JSON.stringify(credentials) + "\n");
}
