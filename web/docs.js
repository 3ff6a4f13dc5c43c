// The API reference page (web/docs.html): fetches the service's OpenAPI 3.1 document and renders, grouped by tag,
// one collapsible entry per operation (method, path, summary, description, token or not, parameters and the request
// body's fields as tables, the body's JSON Schema, an example request and response, and "try it": ./docs-try.js),
// a table of contents and a search that filters both. Plain DOM, no libraries, no network but the document (and the
// calls "try it" sends).
import { el, examples, resolve, tryIt } from "./docs-try.js";

const SOURCE = "/api/v1/openapi.json";

/** A JSON Schema's type in words: `string`, `array of number`, `one of object, object`, an enum's values. */
function typeOf(s) {
  if (!s) return "";
  if (s.enum) return `one of ${s.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.type === "array") return `array of ${typeOf(s.items) || "any"}`;
  const alt = s.anyOf ?? s.oneOf;
  if (alt) return alt.map(typeOf).join(" or ");
  return String(s.type ?? "");
}

/**
 * Text of an OpenAPI description (CommonMark) as nodes with its `code spans` in <code> (the only Markdown the
 * service's descriptions use); an unpaired backtick stays as it is.
 */
const inline = (text) => text.split(/`([^`]+)`/).map((part, i) => (i % 2 ? el("code", {}, part) : part));

/** A table with header `head` and rows of cells (strings or nodes). */
const table = (head, rows) =>
  el(
    "table",
    {},
    el("tr", {}, ...head.map((h) => el("th", {}, h))),
    ...rows.map((r) => el("tr", {}, ...r.map((c) => el("td", {}, c)))),
  );

/** Table of an operation's parameters (name, in, required, type, description). */
const parameters = (params) =>
  table(
    ["Parameter", "In", "Required", "Type", "Description"],
    params.map((p) => [
      el("code", {}, p.name),
      p.in,
      p.required ? "yes" : "no",
      typeOf(p.schema),
      p.description ?? p.schema?.description ?? "",
    ]),
  );

/** Table of a body schema's top-level fields (name, required, type, description). */
const fields = (schema) =>
  table(
    ["Field", "Required", "Type", "Description"],
    Object.entries(schema?.properties ?? {}).map(([name, p]) => [
      el("code", {}, name),
      (schema.required ?? []).includes(name) ? "yes" : "no",
      typeOf(p),
      p.description ?? "",
    ]),
  );

/** One operation as a <details> element (its id is the operationId, the table of contents' anchor). */
function operation(doc, method, path, op) {
  const open = Array.isArray(op.security) && op.security.length === 0;
  const head = el(
    "summary",
    {},
    el("span", { class: `method ${method.toUpperCase()}` }, method.toUpperCase()),
    el("span", { class: "path" }, path),
    op.summary ?? "",
    " ",
    el("span", { class: "auth" }, open ? "(public)" : "(bearer token)"),
  );
  const body = el("details", { class: "op", id: op.operationId ?? `${method}${path}` }, head);
  body.dataset.search =
    `${method} ${path} ${op.summary ?? ""} ${op.description ?? ""} ${op.tags?.join(" ") ?? ""}`.toLowerCase();
  if (op.description) body.append(el("p", { class: "description" }, ...inline(op.description)));
  if (op.parameters?.length) body.append(el("h4", {}, "Parameters"), parameters(op.parameters));
  const media = Object.entries(op.requestBody?.content ?? {});
  if (media.length) {
    const schema = resolve(doc, media[0][1].schema); // the media types of one operation share its schema
    body.append(
      el("h4", {}, "Request body ", el("code", {}, media.map(([type]) => type).join(", "))),
      fields(schema),
      el(
        "details",
        {},
        el("summary", {}, "JSON Schema"),
        el("pre", { class: "schema" }, JSON.stringify(schema, null, 2)),
      ),
    );
  }
  body.append(
    el("h4", {}, "Responses"),
    table(
      ["Status", "Description", "Media type"],
      Object.entries(op.responses ?? {}).map(([status, r]) => [
        el("b", {}, status),
        r.description ?? "",
        Object.keys(r.content ?? {}).join(", "),
      ]),
    ),
  );
  body.append(...examples(doc, method, path, op), tryIt(doc, method, path, op));
  return body;
}

/** Shows only the operations (and table-of-contents entries) whose text holds every word of the search box. */
function filter() {
  const words = document.getElementById("search").value.toLowerCase().split(/\s+/).filter(Boolean);
  let shown = 0;
  for (const d of document.querySelectorAll("details.op")) {
    const hit = words.every((w) => d.dataset.search.includes(w));
    d.hidden = !hit;
    document.querySelector(`#tocList a[href="#${CSS.escape(d.id)}"]`)?.parentElement.toggleAttribute("hidden", !hit);
    shown += hit;
  }
  for (const s of document.querySelectorAll("section.tag")) s.hidden = !s.querySelector("details.op:not([hidden])");
  document.getElementById("state").textContent =
    `${shown} of ${document.querySelectorAll("details.op").length} operations shown`;
}

/** Renders the whole document into the page. */
function render(doc) {
  document.getElementById("title").textContent = `${doc.info.title} ${doc.info.version} (OpenAPI ${doc.openapi})`;
  for (const para of (doc.info.description ?? "").split("\n\n"))
    document.getElementById("description").append(el("p", {}, ...inline(para)));
  const schemes = Object.entries(doc.components?.securitySchemes ?? {}).map(([name, s]) =>
    el(
      "li",
      {},
      el("b", {}, name),
      `: ${s.type}`,
      s.flows?.clientCredentials ? ` client credentials, token URL ${s.flows.clientCredentials.tokenUrl}` : "",
      s.scheme ? ` ${s.scheme} ${s.bearerFormat ?? ""}` : "",
    ),
  );
  document.getElementById("security").append(el("h2", {}, "Authentication"), el("ul", {}, ...schemes));
  const byTag = new Map();
  for (const [path, ops] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(ops)) {
      const tag = op.tags?.[0] ?? "other";
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push(operation(doc, method, path, op));
    }
  const main = document.getElementById("operations");
  const toc = document.getElementById("tocList");
  for (const [tag, ops] of byTag) {
    const id = `tag-${tag.replace(/\W+/g, "_")}`;
    main.append(el("section", { class: "tag", id }, el("h2", {}, `${tag} (${ops.length})`), ...ops));
    const links = ops.map((d) =>
      el(
        "li",
        {},
        el(
          "a",
          { href: `#${d.id}` },
          `${d.querySelector(".method").textContent} ${d.querySelector(".path").textContent}`,
        ),
      ),
    );
    toc.append(
      el(
        "details",
        { open: "" },
        el("summary", {}, el("a", { href: `#${id}` }, `${tag} (${ops.length})`)),
        el("ul", {}, ...links),
      ),
    );
  }
  const count = [...byTag.values()].reduce((n, ops) => n + ops.length, 0);
  document.getElementById("state").textContent = `${count} operations in ${byTag.size} groups`;
  document.getElementById("search").addEventListener("input", filter);
  const target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
  if (target?.tagName === "DETAILS") (target.open = true), target.scrollIntoView();
}

/** Opens the operation a table-of-contents link points at. */
window.addEventListener("hashchange", () => {
  const d = document.getElementById(decodeURIComponent(location.hash.slice(1)));
  if (d?.tagName === "DETAILS") d.open = true;
});

fetch(SOURCE, { headers: { accept: "application/vnd.oai.openapi+json, application/json" } })
  .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`${SOURCE} answered ${r.status}`))))
  .then(render)
  .catch((e) => {
    const s = document.getElementById("state");
    s.className = "error";
    s.textContent = String(e);
  });
