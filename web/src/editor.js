// The evalscript editor: CodeMirror 6 with JavaScript highlighting and a lint gutter in which the service's
// evalscript errors ("... at line N, column M ...") are marked at their line.
import { basicSetup } from "codemirror";
import { EditorView } from "@codemirror/view";
import { javascript } from "@codemirror/lang-javascript";
import { diagnosticCount, lintGutter, setDiagnostics } from "@codemirror/lint";

/** CodeMirror view in `parent` (labelled by `labelId`); `onChange()` after each edit. */
export function createEditor(parent, labelId, onChange) {
  return new EditorView({
    parent,
    extensions: [
      basicSetup,
      javascript(),
      lintGutter(),
      EditorView.contentAttributes.of({ "aria-labelledby": labelId }),
      EditorView.updateListener.of((u) => u.docChanged && onChange()),
    ],
  });
}

/** Replaces the editor's text (clearing the marked errors). */
export const setText = (view, text) => {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
  view.dispatch(setDiagnostics(view.state, []));
};

/**
 * Marks the error `message` in the gutter at "line N[, column M]" when the message names one (the service's
 * evalscript errors do); clears the marks otherwise. Returns the line number or null.
 */
export function markError(view, message) {
  const m = /\bline (\d+)(?:, column (\d+))?/.exec(message ?? "");
  const n = m ? Number(m[1]) : 0;
  // no transaction (and no editor update) when there is nothing to clear: a run's success clears every time
  if (n < 1 || n > view.state.doc.lines)
    return (diagnosticCount(view.state) && view.dispatch(setDiagnostics(view.state, [])), null);
  const line = view.state.doc.line(n);
  const from = Math.min(line.to, line.from + Math.max(0, Number(m[2] ?? 1) - 1));
  view.dispatch(setDiagnostics(view.state, [{ from, to: line.to, severity: "error", message }]));
  return n;
}
