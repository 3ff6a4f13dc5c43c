// The example request and response and the "try it" form of each operation of the API reference (web/docs.js).
// Example bodies: a hand-written one for the main operations (the sample area and date of `npm start`'s data),
// otherwise one built from the request body's JSON Schema (const, enum, default, then the type). "Try it" sends the
// request from the browser with the console's token (sessionStorage `eo-edge-token`, set by logging in at /).
const TOKEN_KEY = "eo-edge-token";
const AREA = [-11.55, 24.72, -11.3, 24.88];
const TIME = { from: "2020-02-19T00:00:00Z", to: "2020-02-20T00:00:00Z" };
const CRS84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84";
const TRUE_COLOR =
  '//VERSION=3\nfunction setup() { return { input: ["B02", "B03", "B04", "dataMask"], output: { bands: 4 } }; }\nfunction evaluatePixel(s) { return [2.5 * s.B04, 2.5 * s.B03, 2.5 * s.B02, s.dataMask]; }';
const NDVI =
  '//VERSION=3\nfunction setup() { return { input: ["B04", "B08", "dataMask"], output: [{ id: "ndvi", bands: 1, sampleType: "FLOAT32" }, { id: "dataMask", bands: 1 }] }; }\nfunction evaluatePixel(s) { return { ndvi: [(s.B08 - s.B04) / (s.B08 + s.B04)], dataMask: [s.dataMask] }; }';

/** Hand-written example bodies, by the path's last words (aliases share them). */
const BODIES = [
  [
    /\/(process\/v1|api\/v1\/process)$/,
    {
      input: {
        bounds: { bbox: AREA, properties: { crs: CRS84 } },
        data: [{ type: "sentinel-2-l2a", dataFilter: { timeRange: TIME } }],
      },
      output: { width: 512, height: 330, responses: [{ identifier: "default", format: { type: "image/png" } }] },
      evalscript: TRUE_COLOR,
    },
  ],
  [
    /\/(statistics\/v1|api\/v1\/statistics)$/,
    {
      input: { bounds: { bbox: AREA, properties: { crs: CRS84 } }, data: [{ type: "sentinel-2-l2a" }] },
      aggregation: {
        timeRange: { from: "2020-02-01T00:00:00Z", to: "2020-03-01T00:00:00Z" },
        aggregationInterval: { of: "P10D" },
        width: 400,
        height: 260,
        evalscript: NDVI,
      },
    },
  ],
  [
    /\/search$/,
    { collections: ["sentinel-2-l2a"], bbox: AREA, datetime: "2020-02-01T00:00:00Z/2020-03-01T00:00:00Z", limit: 5 },
  ],
];
const PATH_VALUES = {
  collectionId: "sentinel-2-l2a",
  accountId: "me",
  locationId: "aws-eu-central-1",
  typeId: "sentinel-2-l2a",
  id: "0",
};

/** Creates an element with attributes and children (strings or nodes). */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

/** The component a `{$ref: "#/components/schemas/X"}` names, or the schema itself. */
export const resolve = (doc, schema) =>
  schema && typeof schema.$ref === "string" && schema.$ref.startsWith("#/components/schemas/")
    ? doc.components.schemas[schema.$ref.slice(21)]
    : schema;

/** An example value of a JSON Schema (required members of objects, or the first three when none is required). */
function sample(doc, s, depth = 0) {
  s = resolve(doc, s) ?? {};
  if (s.examples?.length) return s.examples[0];
  for (const k of ["const", "default"]) if (s[k] !== undefined) return s[k];
  if (s.enum) return s.enum[0];
  if (s.anyOf || s.oneOf) return sample(doc, (s.anyOf ?? s.oneOf)[0], depth);
  if (depth > 6) return null;
  if (s.type === "object" || s.properties) {
    const names = s.required?.length ? s.required : Object.keys(s.properties ?? {}).slice(0, 3);
    return Object.fromEntries(names.map((n) => [n, sample(doc, s.properties?.[n], depth + 1)]));
  }
  if (s.type === "array")
    return Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => sample(doc, s.items, depth + 1));
  if (s.type === "number" || s.type === "integer") return s.minimum ?? 0;
  if (s.type === "boolean") return false;
  if (s.type === "string") return s.format === "date-time" ? "2020-02-19T00:00:00Z" : "string";
  return null;
}

/** The example body of an operation (JSON value or form string), or undefined when it takes none. */
function exampleBody(doc, path, op) {
  const [type, media] = Object.entries(op.requestBody?.content ?? {})[0] ?? [];
  if (!type) return undefined;
  if (type === "application/x-www-form-urlencoded")
    return "grant_type=client_credentials&client_id=<client id>&client_secret=<client secret>";
  return BODIES.find(([re]) => re.test(path))?.[1] ?? sample(doc, media.schema);
}

/** The path with example values for its parameters (see PATH_VALUES; others stay `{name}`). */
const examplePath = (path) => path.replace(/\{(\w+)\}/g, (m, n) => PATH_VALUES[n] ?? m);

/** Shell-quotes a string for the curl example. */
const quote = (s) => `'${s.replaceAll("'", "'\\''")}'`;

/** The example request (curl) and response (status lines and the error envelope) of an operation. */
export function examples(doc, method, path, op) {
  const body = exampleBody(doc, path, op);
  const type = Object.keys(op.requestBody?.content ?? {})[0];
  const open = Array.isArray(op.security) && op.security.length === 0;
  const lines = [
    `curl -X ${method.toUpperCase()} ${quote(`${doc.servers?.[0]?.url ?? location.origin}${examplePath(path)}`)}`,
  ];
  if (!open) lines.push(`  -H "Authorization: Bearer $TOKEN"`);
  if (body !== undefined)
    lines.push(
      `  -H 'Content-Type: ${type}'`,
      `  --data ${quote(typeof body === "string" ? body : JSON.stringify(body, null, 2))}`,
    );
  const ok = Object.entries(op.responses ?? {}).find(([s]) => /^2/.test(s)) ?? ["200", {}];
  const envelope = {
    error: {
      status: 400,
      reason: "Bad Request",
      message: "<what is wrong, and how to fix it>",
      code: "COMMON_BAD_PAYLOAD",
      errors: {},
    },
  };
  const response =
    `HTTP/1.1 ${ok[0]} ${ok[1].description ?? ""}${Object.keys(ok[1].content ?? {}).length ? `\nContent-Type: ${Object.keys(ok[1].content)[0]}` : ""}\n\n` +
    `On bad input (4XX), the error envelope:\n${JSON.stringify(envelope, null, 2)}`;
  return [
    el("h4", {}, "Example request"),
    el("pre", { class: "example-request" }, lines.join(" \\\n")),
    el("h4", {}, "Example response"),
    el("pre", { class: "example-response" }, response),
  ];
}

/** Runs the try-it request of one form; shows status, media type and the body (text, or the size of binary data). */
async function send(form, method, path, type, out) {
  const values = Object.fromEntries(new FormData(form));
  const url = new URL(
    path.replace(/\{(\w+)\}/g, (_, n) => encodeURIComponent(values[`path.${n}`] ?? "")),
    location.origin,
  );
  for (const [k, v] of Object.entries(values))
    if (k.startsWith("query.") && v !== "") url.searchParams.set(k.slice(6), v);
  const headers = {};
  if (values.token) headers.authorization = `Bearer ${values.token}`;
  if (values.body !== undefined && values.body !== "") headers["content-type"] = type;
  out.textContent = "sending…";
  try {
    const r = await fetch(url, {
      method: method.toUpperCase(),
      headers,
      body: headers["content-type"] ? values.body : undefined,
    });
    const ct = r.headers.get("content-type") ?? "";
    const text = /json|xml|text|html/.test(ct)
      ? await r.text()
      : `<${(await r.arrayBuffer()).byteLength} bytes of ${ct}>`;
    let shown = text;
    try {
      shown = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      /* not JSON: as is */
    }
    out.textContent = `HTTP ${r.status} ${r.statusText}\nContent-Type: ${ct}\n\n${shown.slice(0, 20000)}`;
    form.dataset.status = String(r.status);
  } catch (e) {
    out.textContent = String(e);
    form.dataset.status = "error";
  }
}

/** The "try it" form of an operation: its path and query parameters, the body (example prefilled) and the token. */
export function tryIt(doc, method, path, op) {
  const form = el("form", { class: "try" });
  const input = (name, label, value = "") =>
    el("label", {}, `${label} `, Object.assign(el("input", { name }), { value }));
  for (const p of op.parameters ?? [])
    form.append(
      p.in === "path"
        ? input(`path.${p.name}`, p.name, PATH_VALUES[p.name] ?? "")
        : input(`query.${p.name}`, `${p.name} (query)`),
    );
  const body = exampleBody(doc, path, op);
  const type = Object.keys(op.requestBody?.content ?? {})[0];
  if (body !== undefined)
    form.append(
      el(
        "label",
        { class: "block" },
        `Body (${type})`,
        Object.assign(el("textarea", { name: "body", spellcheck: "false", rows: "10" }), {
          value: typeof body === "string" ? body : JSON.stringify(body, null, 2),
        }),
      ),
    );
  const open = Array.isArray(op.security) && op.security.length === 0;
  if (!open) form.append(input("token", "Bearer token", sessionStorage.getItem(TOKEN_KEY) ?? ""));
  const out = el("pre", { class: "try-result", "aria-live": "polite" });
  form.append(el("button", { type: "submit" }, "Send"), out);
  form.addEventListener("submit", (e) => (e.preventDefault(), send(form, method, path, type, out)));
  return el("details", { class: "try-it" }, el("summary", {}, "Try it"), form);
}
