// Small DOM helpers for the console's list pages: table rows with text cells and action buttons.

/** A <td> with `content` (text, or a Node). */
function cell(content) {
  const td = document.createElement("td");
  if (content instanceof Node) td.append(content);
  else td.textContent = content ?? "";
  return td;
}

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

/** Replaces the rows of `table`'s tbody: one row per item, cells from `columns(item)` (texts or Nodes). */
export function fillTable(table, items, columns) {
  const rows = items.map((item) => {
    const tr = document.createElement("tr");
    tr.dataset.id = item.id ?? item.clientId ?? "";
    tr.append(...columns(item).map(cell));
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
