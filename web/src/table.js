// Small DOM helpers for the console's list pages: table rows with text cells and action buttons.

/** A <td> with `content` (text, or a Node). */
function cell(content) {
  const td = document.createElement("td");
  if (content instanceof Node) td.append(content);
  else td.textContent = content ?? "";
  return td;
}

/** `td` with data-label `label` (when there is one). */
const labelled = (td, label) => (label && (td.dataset.label = label), td);

/** A button labelled `label` (with aria-label `label id`) that runs `action` and then `after`. */
export function actionButton(label, id, action, after) {
  const b = Object.assign(document.createElement("button"), { type: "button", textContent: label });
  b.setAttribute("aria-label", `${label} ${id}`);
  b.addEventListener("click", async () => {
    b.disabled = true;
    try {
      await action();
    } finally {
      b.disabled = false;
      await after();
    }
  });
  return b;
}

/**
 * Replaces the rows of `table`'s tbody: one row per item, cells from `columns(item)` (texts or Nodes). Each cell
 * gets its column's header as data-label (narrow screens show rows as cards labelled by it, pages.css).
 */
export function fillTable(table, items, columns) {
  const heads = [...(table.tHead?.rows[0]?.cells ?? [])].map((th) => th.textContent);
  const rows = items.map((item) => {
    const tr = document.createElement("tr");
    tr.dataset.id = item.id ?? item.clientId ?? "";
    tr.append(...columns(item).map((c, i) => labelled(cell(c), heads[i])));
    return tr;
  });
  table.tBodies[0].replaceChildren(...rows);
}

/** A <span> holding `list` (buttons). */
export function buttons(...list) {
  const span = Object.assign(document.createElement("span"), { className: "actions" });
  span.append(...list);
  return span;
}
