/* The YAML editor: each <textarea data-editor="yaml"> becomes an ACE editor (line numbers,
 * YAML highlighting, the console's light or dark theme) whose problems are marked on their
 * lines, all at once.
 *
 * The textarea stays in the form, hidden, and is written on every change, then sent an
 * "input" event: forms, CSRF, htmx validation (Submit) and policy.js's sync work as with the
 * plain textarea, which is also what a browser without JavaScript gets. Code that sets the
 * textarea's value itself sends it "editor:sync" so the editor shows the new text.
 *
 * Problems: the server renders them as a list (data-problems names its container); each
 * <li data-line="N" data-message="..."> becomes a gutter annotation and a marked line, and a
 * problem's "line N" link (console.js sends "editor:goto") moves the cursor there.
 *
 * ACE (ace.js) is loaded by the two pages that have an editor, before this file; its YAML
 * mode and themes come from data-ace-base (the installed django-ace package's build).
 */
(function () {
  "use strict";

  if (!window.ace) { return; }
  var THEMES = { light: "ace/theme/chrome", dark: "ace/theme/tomorrow_night" };

  function theme() {
    return THEMES[document.documentElement.dataset.theme === "dark" ? "dark" : "light"];
  }

  function problemsIn(container) {
    if (!container) { return []; }
    return Array.prototype.map.call(container.querySelectorAll("[data-line]:not(a)"), function (item) {
      return { line: parseInt(item.dataset.line, 10) || 0, message: item.dataset.message || item.textContent.trim() };
    }).filter(function (problem) { return problem.line > 0; });
  }

  function upgrade(area) {
    ace.config.set("basePath", area.dataset.aceBase);
    var box = document.createElement("div");
    box.className = "code-editor";
    box.style.height = (area.dataset.editorHeight || Math.max(12, area.rows || 20) * 1.45 + "em");
    area.parentNode.insertBefore(box, area);
    area.hidden = true;
    area.classList.add("code-editor-source");

    var editor = ace.edit(box, {
      mode: "ace/mode/yaml",
      theme: theme(),
      value: area.value,
      tabSize: 2,
      useSoftTabs: true,
      useWorker: false,  // the server judges the text; ACE's own YAML linter would disagree
      showPrintMargin: false,
      fontSize: "12.5px",
      readOnly: area.disabled || area.readOnly || !!area.closest("fieldset[disabled]"),
      wrap: false
    });
    editor.session.setUseWrapMode(false);
    editor.clearSelection();
    editor.renderer.setScrollMargin(4, 4);
    var input = editor.textInput.getElement();
    var label = area.id && document.querySelector('label[for="' + CSS.escape(area.id) + '"]');
    input.setAttribute("aria-label", label ? label.textContent.trim() : (area.getAttribute("aria-label") || "YAML"));
    if (area.getAttribute("aria-describedby")) { input.setAttribute("aria-describedby", area.getAttribute("aria-describedby")); }
    if (label) { label.addEventListener("click", function () { editor.focus(); }); }

    var applying = false;
    editor.session.on("change", function () {
      if (applying) { return; }
      area.value = editor.getValue();
      area.dispatchEvent(new Event("input", { bubbles: true }));
    });
    area.addEventListener("editor:sync", function () {
      if (editor.getValue() === area.value) { return; }
      applying = true;
      var cursor = editor.getCursorPosition();
      editor.session.doc.setValue(area.value);
      editor.moveCursorToPosition(cursor);
      editor.clearSelection();
      applying = false;
    });
    area.addEventListener("editor:goto", function (event) {
      event.preventDefault();
      editor.focus();
      editor.gotoLine(event.detail.line, 0, true);
      editor.scrollToLine(event.detail.line - 1, true, true, function () {});
    });

    var markers = [];
    function mark() {
      var problems = problemsIn(document.getElementById(area.dataset.problems));
      var Range = ace.require("ace/range").Range;
      markers.forEach(function (id) { editor.session.removeMarker(id); });
      markers = [];
      var byLine = {};
      problems.forEach(function (problem) {
        var row = Math.min(problem.line, editor.session.getLength()) - 1;
        (byLine[row] = byLine[row] || []).push(problem.message);
      });
      editor.session.setAnnotations(Object.keys(byLine).map(function (row) {
        markers.push(editor.session.addMarker(new Range(+row, 0, +row, 1), "code-editor-problem", "fullLine"));
        return { row: +row, column: 0, type: "error", text: byLine[row].join("\n") };
      }));
      box.classList.toggle("has-problems", problems.length > 0);
    }
    var region = document.getElementById(area.dataset.problems);
    if (region) {
      // The list is replaced (htmx outerHTML on Submit, innerHTML in policy.js): watch its parent.
      new MutationObserver(mark).observe(region.parentNode, { childList: true, subtree: true, characterData: true });
      mark();
    }
    document.addEventListener("console:theme", function () { editor.setTheme(theme()); });
    if (window.ResizeObserver) { new ResizeObserver(function () { editor.resize(); }).observe(box); }
    area.editor = editor;  // for tests and the browser console
  }

  document.querySelectorAll('textarea[data-editor="yaml"]').forEach(upgrade);
})();
