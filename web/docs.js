// The API reference page (web/docs.html): fetches the service's OpenAPI 3.1 document and renders one collapsible
// entry per operation, grouped by tag: method, path, summary, whether a token is needed, parameters and the JSON
// Schema of the request body (resolved from components.schemas). Plain DOM, no libraries, no network but the document.
"use strict";

const SOURCE = "/api/v1/openapi.json";

/** Creates an element with text and children. */
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

/** The component a `{$ref: "#/components/schemas/X"}` names, or the schema itself. */
const resolve = (doc, schema) =>
  schema && typeof schema.$ref === "string" && schema.$ref.startsWith("#/components/schemas/")
    ? doc.components.schemas[schema.$ref.slice(21)]
    : schema;

/** Table of an operation's parameters (name, in, required, type, description). */
function parameters(params) {
  const rows = params.map((p) =>
    el("tr", {}, el("td", {}, el("code", {}, p.name)), el("td", {}, p.in), el("td", {}, p.required ? "yes" : "no"),
      el("td", {}, String(p.schema?.type ?? "")), el("td", {}, p.description ?? "")));
  return el("table", {}, el("tr", {}, ...["Parameter", "In", "Required", "Type", "Description"].map((h) => el("th", {}, h))), ...rows);
}

/** One operation as a <details> element. */
function operation(doc, method, path, op) {
  const open = Array.isArray(op.security) && op.security.length === 0;
  const head = el("summary", {}, el("span", { class: `method ${method.toUpperCase()}` }, method.toUpperCase()),
    el("span", { class: "path" }, path), op.summary ?? "", " ", el("span", { class: "auth" }, open ? "(public)" : "(bearer token)"));
  const body = el("details", { class: "op", id: op.operationId ?? `${method}${path}` }, head);
  if (op.description) body.append(el("p", {}, op.description));
  if (op.parameters?.length) body.append(parameters(op.parameters));
  for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
    body.append(el("p", {}, "Request body ", el("code", {}, type), ":"), el("pre", {}, JSON.stringify(resolve(doc, media.schema), null, 2)));
  }
  for (const [status, r] of Object.entries(op.responses ?? {})) {
    const types = Object.keys(r.content ?? {});
    body.append(el("p", {}, el("b", {}, status), ` ${r.description}`, types.length ? ` (${types.join(", ")})` : ""));
  }
  return body;
}

/** Renders the whole document into the page. */
function render(doc) {
  document.getElementById("title").textContent = `${doc.info.title} ${doc.info.version} (OpenAPI ${doc.openapi})`;
  for (const para of (doc.info.description ?? "").split("\n\n")) document.getElementById("description").append(el("p", {}, para));
  const schemes = Object.entries(doc.components?.securitySchemes ?? {}).map(([name, s]) =>
    el("li", {}, el("b", {}, name), `: ${s.type}`, s.flows?.clientCredentials ? ` client credentials, token URL ${s.flows.clientCredentials.tokenUrl}` : "",
      s.scheme ? ` ${s.scheme} ${s.bearerFormat ?? ""}` : ""));
  document.getElementById("security").append(el("h2", {}, "Authentication"), el("ul", {}, ...schemes));
  const byTag = new Map();
  for (const [path, ops] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(ops)) {
      const tag = op.tags?.[0] ?? "other";
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push(operation(doc, method, path, op));
    }
  const main = document.getElementById("operations");
  for (const [tag, ops] of byTag) main.append(el("section", { class: "tag" }, el("h2", {}, `${tag} (${ops.length})`), ...ops));
  const count = [...byTag.values()].reduce((n, ops) => n + ops.length, 0);
  document.getElementById("state").textContent = `${count} operations in ${byTag.size} groups`;
}

fetch(SOURCE, { headers: { accept: "application/vnd.oai.openapi+json, application/json" } })
  .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`${SOURCE} answered ${r.status}`))))
  .then(render)
  .catch((e) => {
    const s = document.getElementById("state");
    s.className = "error";
    s.textContent = String(e);
  });
