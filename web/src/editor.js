// The evalscript editor: CodeMirror 6 with JavaScript highlighting, and the preset list (the repository's
// data/evalscripts, copied with an index.json into web/vendor/evalscripts/ by scripts/build-web.mjs).
import { basicSetup } from "codemirror";
import { EditorView } from "@codemirror/view";
import { javascript } from "@codemirror/lang-javascript";

/** CodeMirror view in `parent` (labelled by `labelId`); `onChange()` after each edit. */
export function createEditor(parent, labelId, onChange) {
  return new EditorView({
    parent,
    extensions: [
      basicSetup,
      javascript(),
      EditorView.contentAttributes.of({ "aria-labelledby": labelId }),
      EditorView.updateListener.of((u) => u.docChanged && onChange()),
    ],
  });
}

/** Replaces the editor's text. */
export const setText = (view, text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });

/** Fills `select` with the preset names; resolves to a loader `(name) => Promise<script text>`. */
export async function loadPresets(select) {
  const names = await (await fetch("/vendor/evalscripts/index.json")).json();
  for (const n of names) select.append(new Option(n.replace(/\.js$/, "").replace(/__/g, " / "), n));
  return async (name) => (await fetch(`/vendor/evalscripts/${encodeURIComponent(name)}`)).text();
}
