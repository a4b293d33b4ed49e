/* The policy editor: keep the form and the YAML in step, both ways, as the user types.
 *
 * The server is the one judge (the engine's parser): each edit posts the whole form to the
 * sync URL with `source` = "form" or "yaml" (or an `op` for a structural button). The answer
 * carries the YAML (applied when the form changed), the form rebuilt from the YAML (applied
 * when the YAML changed or a button was pressed) and the errors, each shown at the field the
 * parser names, and every problem at its line (editor.js marks them in the YAML editor).
 * Save and What-if stay disabled while the parser refuses the text.
 */
(function () {
  "use strict";

  var form = document.getElementById("policy-form");
  if (!form) { return; }
  var fields = document.getElementById("policy-fields");
  var text = document.getElementById("policy-text");
  var status = document.getElementById("policy-status");
  var url = form.dataset.syncUrl;
  var timer = null;
  var sequence = 0;

  function escape(value) {
    var div = document.createElement("div");
    div.textContent = value;
    return div.innerHTML;
  }

  function problemItem(problem) {
    var label = (status.dataset.lineLabel || "line %(n)s").replace("%(n)s", problem.line);
    var where = problem.field ? problem.field + ": " : "";
    return '<li data-field="' + escape(problem.field).replace(/"/g, "&quot;") + '" data-line="' + problem.line +
      '" data-message="' + escape(where + problem.message).replace(/"/g, "&quot;") + '">' +
      (problem.line ? '<a href="#" class="line" data-line="' + problem.line + '">' + escape(label) + "</a> " : "") +
      (problem.field ? "<code>" + escape(problem.field) + "</code>: " : "") + escape(problem.message) + "</li>";
  }

  function showErrors(errors, problems) {
    form.querySelectorAll("[data-error-for]").forEach(function (el) { el.textContent = ""; });
    form.querySelectorAll(".field-error").forEach(function (el) {
      el.classList.remove("field-error");
      el.removeAttribute("aria-invalid");
    });
    var names = Object.keys(errors || {});
    var valid = names.length === 0;
    names.forEach(function (name) {
      var slot = form.querySelector('[data-error-for="' + CSS.escape(name) + '"]');
      if (slot) {
        slot.textContent = errors[name];
        var details = slot.closest("details");
        if (details) { details.open = true; }
      }
      var input = form.querySelector('[name="' + CSS.escape(name) + '"]:not([type=hidden])');
      if (input) { input.classList.add("field-error"); input.setAttribute("aria-invalid", "true"); }
      if (!name || (!slot && !input)) { text.classList.add("field-error"); }
    });
    status.innerHTML = valid
      ? '<div class="callout ok">' + escape(status.dataset.valid || "Valid: the engine's parser accepts it.") + "</div>"
      : '<div class="callout bad"><strong>' + escape(status.dataset.invalid || "The engine's parser refuses it:") +
        '</strong><ul class="errors" data-lines-of="' + text.id + '">' +
        (problems || names.map(function (n) { return { field: n, line: 0, message: errors[n] }; }))
          .map(problemItem).join("") + "</ul></div>";
    form.querySelectorAll("[data-needs-valid]").forEach(function (button) { button.disabled = !valid; });
  }

  function openPlugins() {
    return Array.prototype.map.call(fields.querySelectorAll("details[open]"), function (d) { return d.id; });
  }

  function sync(source, op) {
    var data = new FormData(form);
    data.set("source", source);
    if (op) { data.set("op", op); }
    var mine = ++sequence;
    form.setAttribute("aria-busy", "true");
    return fetch(url, {
      method: "POST", body: data, credentials: "same-origin",
      headers: { "X-Requested-With": "fetch" }
    }).then(function (response) { return response.json(); }).then(function (answer) {
      if (mine !== sequence) { return; }  // a newer edit is on its way
      form.removeAttribute("aria-busy");
      if (answer.form !== undefined) {
        var open = openPlugins();
        var focused = document.activeElement && document.activeElement.id;
        fields.innerHTML = answer.form;
        open.forEach(function (id) { var d = document.getElementById(id); if (d) { d.open = true; } });
        if (focused && fields.contains(document.getElementById(focused))) { document.getElementById(focused).focus(); }
      }
      if (source !== "yaml" && answer.text !== undefined && answer.text !== text.value) {
        text.value = answer.text;
        text.dispatchEvent(new CustomEvent("editor:sync"));  // editor.js shows the new text
      }
      showErrors(answer.errors, answer.problems);
    }).catch(function () { form.removeAttribute("aria-busy"); });
  }

  function later(source) {
    clearTimeout(timer);
    timer = setTimeout(function () { sync(source); }, 350);
  }

  form.addEventListener("input", function (event) {
    if (event.target === text) { later("yaml"); }
    else if (fields.contains(event.target) && event.target.tagName !== "SELECT") { later("form"); }
  });
  form.addEventListener("change", function (event) {
    if (fields.contains(event.target) && (event.target.type === "checkbox" || event.target.tagName === "SELECT")) {
      if (event.target.name === "action_add" || /\.add$/.test(event.target.name)) { return; }
      clearTimeout(timer);
      sync("form");
    }
  });
  form.addEventListener("click", function (event) {
    var button = event.target.closest("[data-op]");
    if (!button || !fields.contains(button)) { return; }
    event.preventDefault();
    clearTimeout(timer);
    sync("form", button.dataset.op);
  });
  // A button inside <summary> would also fold the plugin: keep it open or shut as it was.
  fields.addEventListener("click", function (event) {
    if (event.target.closest("summary [data-op]")) { event.preventDefault(); }
  }, true);
})();
