/* The console's behaviour: theme, menu, namespace switcher, and live regions.
 *
 * Live regions: elements with `data-live="topic ..."` and `hx-trigger="live"`. One websocket
 * (/ws/live/) brings the topics that changed; each matching region asks its view for a fresh
 * fragment through htmx. At most one request per region is in flight; changes that arrive
 * meanwhile cause exactly one more. Every (re)connection refreshes every region, so a page
 * catches up after a dropped connection or a server restart.
 *
 * A refresh keeps what the user did in the region: ticked row boxes, and each
 * <details id> open or closed as they left it (a tree the server draws expanded stays
 * collapsed where the user collapsed it). A region holding a [data-live-hold] element
 * (a preview the user asked for) waits until its [data-live-release] button removes it.
 *
 * Why our own socket and not htmx's ws extension: the extension reconnects only after codes
 * 1006/1011/1012/1013, and a server that shuts down cleanly closes with 1001, after which
 * the page would never hear again. Here every close but "sign in first" reconnects.
 */
(function () {
  "use strict";

  /* ---------- theme, menu, namespace ---------- */
  function setTheme(theme) {
    document.documentElement.dataset.theme = theme;
    try { localStorage.setItem("volcano-theme", theme); } catch (e) { /* private mode */ }
    document.dispatchEvent(new CustomEvent("console:theme", { detail: { theme: theme } }));
  }

  document.addEventListener("click", function (event) {
    var toggle = event.target.closest("[data-theme-toggle]");
    if (toggle) {
      setTheme(document.documentElement.dataset.theme === "dark" ? "light" : "dark");
      return;
    }
    var nav = event.target.closest("[data-nav-toggle]");
    if (nav) {
      var open = document.body.classList.toggle("nav-open");
      nav.setAttribute("aria-expanded", open ? "true" : "false");
    }
  });

  document.addEventListener("change", function (event) {
    var select = event.target.closest("[data-autosubmit]");
    if (select && select.form) { select.form.submit(); }
  });

  /* ---------- confirmations ---------- */
  // A form with data-confirm="Apply “{action}” to {n} selected job(s)?" asks first, in a
  // <dialog>: {action} is the pressed button's text, {n} the number of checked rows.
  function confirmDialog(text, onYes) {
    var dialog = document.createElement("dialog");
    dialog.className = "confirm";
    dialog.innerHTML = '<p></p><form method="dialog" class="actions">' +
      '<button class="btn" value="no"></button> <button class="btn btn-primary" value="yes"></button></form>';
    dialog.querySelector("p").textContent = text;
    // The words come translated from the page (base.html's data-ok and data-cancel).
    dialog.querySelector('button[value="yes"]').textContent = document.documentElement.dataset.ok || "Confirm";
    dialog.querySelector('button[value="no"]').textContent = document.documentElement.dataset.cancel || "Cancel";
    document.body.appendChild(dialog);
    dialog.addEventListener("close", function () {
      if (dialog.returnValue === "yes") { onYes(); }
      dialog.remove();
    });
    dialog.showModal();
  }

  // A control marked aria-disabled="true" (kept focusable so its title says why) never acts.
  function disabledControl(node) {
    return node && node.closest ? node.closest('[aria-disabled="true"]') : null;
  }
  document.addEventListener("click", function (event) {
    if (disabledControl(event.target)) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);

  // The question is the pressed button's data-confirm, else its form's: a form holding a
  // harmless and a destructive button asks only for the destructive one.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    var submitter = event.submitter;
    if (disabledControl(submitter)) {
      event.preventDefault();
      event.stopImmediatePropagation();
      return;
    }
    var question = (submitter && submitter.dataset && submitter.dataset.confirm) ||
      (form.dataset && form.dataset.confirm);
    if (!question) { return; }
    if (form.dataset.confirmed === "1") { delete form.dataset.confirmed; return; }
    event.preventDefault();
    event.stopImmediatePropagation();
    var n = form.querySelectorAll("input[type=checkbox][name=selected]:checked").length;
    var hasRows = form.querySelector("input[name=selected]") !== null;
    var action = submitter ? submitter.textContent.trim() : "";
    if (hasRows && n === 0) {
      var result = form.querySelector("[role=status]");
      if (result) { result.textContent = form.dataset.none || "Select jobs first."; }
      return;
    }
    var text = question.replace("{action}", action).replace("{n}", n);
    confirmDialog(text, function () {
      var now = attached(form, submitter);
      if (!now.form) { return; }
      now.form.dataset.confirmed = "1";
      if (now.form.requestSubmit) { now.form.requestSubmit(now.submitter); } else { now.form.submit(); }
    });
  }, true);

  // The form and button a confirmation submits, as they are in the page now: a live refresh
  // that was already on its way when the dialog opened may have swapped them for fresh
  // copies, and submitting the detached originals would do nothing.
  function attached(form, submitter) {
    if (form.isConnected || !form.id) { return { form: form, submitter: submitter }; }
    var fresh = document.getElementById(form.id);
    if (!fresh) { return { form: null, submitter: null }; }
    var button = null;
    if (submitter) {
      document.querySelectorAll("button, input[type=submit]").forEach(function (candidate) {
        if (!button && candidate.form === fresh && candidate.name === submitter.name &&
            candidate.value === submitter.value &&
            candidate.textContent.trim() === submitter.textContent.trim()) {
          button = candidate;
        }
      });
    }
    return { form: fresh, submitter: button };
  }

  /* ---------- selecting rows ---------- */
  function countSelected(scope) {
    var counter = scope.querySelector("[data-selected-count]");
    if (!counter) { return; }
    var n = scope.querySelectorAll("input[type=checkbox][name=selected]:checked").length;
    counter.textContent = (counter.dataset.template || "{n} selected").replace("{n}", n);
  }
  document.addEventListener("change", function (event) {
    var all = event.target.closest("[data-select-all]");
    var form = event.target.form;
    if (all && form) {
      form.querySelectorAll("input[type=checkbox][name=selected]").forEach(function (box) { box.checked = all.checked; });
    }
    if (form) { countSelected(form); }
  });
  document.addEventListener("console:refreshed", function (event) {
    var form = event.target.closest && event.target.closest("form");
    if (form) { countSelected(form); }
  });

  /* ---------- the YAML editor: a problem's line link selects that line ----------
   * The list names its textarea with data-lines-of (default: #manifest). When editor.js has
   * made the textarea a code editor, it takes the "editor:goto" event and moves its cursor;
   * otherwise the plain textarea's line is selected. */
  document.addEventListener("click", function (event) {
    var link = event.target.closest("a.line[data-line]");
    if (!link) { return; }
    var list = link.closest("[data-lines-of]");
    var area = document.getElementById(list ? list.dataset.linesOf : "manifest");
    if (!area) { return; }
    event.preventDefault();
    var lines = area.value.split("\n");
    var line = Math.max(1, Math.min(lines.length, parseInt(link.dataset.line, 10)));
    var goto = new CustomEvent("editor:goto", { cancelable: true, detail: { line: line } });
    if (!area.dispatchEvent(goto)) { return; }
    var start = 0;
    for (var i = 0; i < line - 1; i++) { start += lines[i].length + 1; }
    area.focus();
    area.setSelectionRange(start, start + lines[line - 1].length);
    var lineHeight = parseFloat(getComputedStyle(area).lineHeight) || 18;
    area.scrollTop = Math.max(0, (line - 3) * lineHeight);
  });

  /* ---------- live regions ---------- */
  var MIN_GAP_MS = 250;
  var regionState = new Map(); // region id -> {busy, dirty}
  var preserved = new Map();   // region id -> {checked, open} to restore after the swap

  function topicsOf(el) {
    return (el.getAttribute("data-live") || "").split(/\s+/).filter(Boolean);
  }

  function matches(wanted, changed) {
    // "core.pod" matches any namespace; "core.pod@ns" matches ns and "@*" (unknown ones).
    var w = wanted.split("@"), c = changed.split("@");
    if (w[0] !== c[0]) { return false; }
    if (w.length === 1 || c.length === 1) { return true; }
    return w[1] === c[1] || c[1] === "*" || w[1] === "*";
  }

  function busyTyping(el) {
    var active = document.activeElement;
    return active && el.contains(active) && /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName) &&
      active.type !== "checkbox";
  }

  // A row under the pointer, or text being selected, holds its place: refreshing would move
  // the row the user is about to click or read. The region waits, says that changes wait
  // (a quiet marker that refreshes when pressed), and refreshes once the pointer leaves.
  // Except just after the user acted (a form sent, an action's request): they expect to
  // see its outcome, and the pointer is wherever the button or the dialog was.
  var ACTED_MS = 10000;
  var actedAt = 0;
  document.addEventListener("submit", function () { actedAt = Date.now(); }, true);
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    if (elt && !(elt.hasAttribute && elt.hasAttribute("data-live"))) { actedAt = Date.now(); }
  });

  function holding(el) {
    if (Date.now() - actedAt < ACTED_MS) { return false; }
    if (el.querySelector("tbody tr:hover, li:hover > a, .chip:hover, [data-row]:hover")) { return true; }
    var selection = window.getSelection && window.getSelection();
    return !!(selection && !selection.isCollapsed && selection.anchorNode &&
      el.contains(selection.anchorNode));
  }

  function markWaiting(el, id) {
    if (!el._liveLeave) {
      el._liveLeave = true;
      el.addEventListener("mouseleave", function () {
        el._liveLeave = false;
        release(id, false);
      }, { once: true });
    }
    if (el.querySelector(":scope > .live-waiting")) { return; }
    var marker = document.createElement("button");
    marker.type = "button";
    marker.className = "live-waiting";
    marker.textContent = document.documentElement.dataset.liveWaiting || "Changes waiting: show";
    marker.addEventListener("click", function () { release(id, true); });
    el.insertBefore(marker, el.firstChild);
  }

  function release(id, now) {
    var state = regionState.get(id);
    if (!state) { return; }
    if (now) { state.forced = true; } // the marker was pressed: refresh under the pointer
    if (state.dirty && !state.busy) { refresh(id); }
  }

  function refresh(id) {
    var el = document.getElementById(id);
    if (!el || !window.htmx) { return; }
    var state = regionState.get(id) || { busy: false, dirty: false };
    regionState.set(id, state);
    if (state.busy && Date.now() - state.since > 15000) { state.busy = false; } // lost request
    if (!state.busy && !state.forced && holding(el)) {
      state.dirty = true;
      markWaiting(el, id);
      return;
    }
    // Not while a dialog is open: a confirm dialog holds the form it will submit, and a
    // refresh swapping that form out would make "OK" submit a detached form (nothing).
    if (state.busy || busyTyping(el) || el.closest("[data-live-paused]") ||
        el.querySelector("[data-live-hold]") || document.querySelector("dialog[open]")) {
      state.dirty = true;
      if (!state.busy) { setTimeout(function () { retry(id); }, 1000); }
      return;
    }
    state.busy = true;
    state.dirty = false;
    state.since = Date.now();
    htmx.trigger(el, "live");
  }

  // A preview's close button: the preview goes, and the region it held catches up now.
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-live-release]");
    if (!button) { return; }
    var region = button.closest("[data-live][id]");
    var hold = button.closest("[data-live-hold]");
    if (hold) { hold.remove(); }
    if (!region) { return; }
    var state = regionState.get(region.id) || { busy: false, dirty: false };
    regionState.set(region.id, state);
    state.forced = true;
    refresh(region.id);
  });

  function retry(id) {
    var state = regionState.get(id);
    if (state && state.dirty && !state.busy) { refresh(id); }
  }

  function onTopics(topics) {
    document.querySelectorAll("[data-live][id]").forEach(function (el) {
      var wanted = topicsOf(el);
      var hit = topics.some(function (t) { return wanted.some(function (w) { return matches(w, t); }); });
      if (hit) { refresh(el.id); }
    });
  }

  function refreshAll() {
    document.querySelectorAll("[data-live][id]").forEach(function (el) { refresh(el.id); });
  }

  // Restored as the new content goes in (afterSwap, the same task as the swap), not after
  // htmx's settle delay: a click on "Abort" in those 20 ms found every row unchecked.
  document.addEventListener("htmx:afterSwap", function (event) {
    var el = event.detail.elt;
    var id = el && el.id;
    if (!id || !preserved.has(id)) { return; }
    var keep = preserved.get(id);
    preserved.delete(id);
    var fresh = document.getElementById(id);
    if (!fresh) { return; }
    keep.checked.forEach(function (value) {
      var box = fresh.querySelector('input[type=checkbox][name=selected][value="' + CSS.escape(value) + '"]');
      if (box) { box.checked = true; }
    });
    keep.open.forEach(function (detailsId) {
      var d = document.getElementById(detailsId);
      if (d && fresh.contains(d)) { d.open = true; }
    });
    keep.closed.forEach(function (detailsId) {
      var d = document.getElementById(detailsId);
      if (d && fresh.contains(d)) { d.open = false; }
    });
    fresh.dispatchEvent(new CustomEvent("console:refreshed", { bubbles: true }));
  });

  // The region's request is over (htmx fires these while the old element is still in the
  // page; after an outerHTML swap later events would fire on a detached element).
  function finished(event) {
    var el = event.detail.elt;
    var id = el && el.id;
    var state = id && regionState.get(id);
    // A response that arrives while the user points at a row waits too (its request may
    // have left before the pointer came, or been queued by htmx itself).
    if (state && event.type === "htmx:beforeSwap" && !state.forced && holding(el)) {
      event.detail.shouldSwap = false;
      state.busy = false;
      state.dirty = true;
      markWaiting(el, id);
      return;
    }
    if (!state || !state.busy) { return; }
    state.busy = false;
    state.forced = false;
    if (event.type === "htmx:beforeSwap") {
      preserved.set(id, {
        checked: Array.prototype.map.call(
          el.querySelectorAll("input[type=checkbox][name=selected]:checked"),
          function (box) { return box.value; }),
        open: Array.prototype.map.call(el.querySelectorAll("details[open][id]"),
          function (d) { return d.id; }),
        closed: Array.prototype.map.call(el.querySelectorAll("details[id]:not([open])"),
          function (d) { return d.id; })
      });
    }
    if (state.dirty) { setTimeout(function () { retry(id); }, MIN_GAP_MS); }
  }
  ["htmx:beforeSwap", "htmx:responseError", "htmx:sendError", "htmx:timeout"].forEach(function (name) {
    document.addEventListener(name, finished);
  });

  /* ---------- the socket ---------- */
  var socket = null;
  var attempts = 0;

  function setStatus(state) {
    var status = document.getElementById("live-status");
    if (!status) { return; }
    status.dataset.state = state;
    var label = status.querySelector(".label");
    if (label && label.dataset[state]) { label.textContent = label.dataset[state]; }
  }

  function connect() {
    var holder = document.getElementById("live-socket");
    if (!holder || !window.WebSocket) { return; }
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + location.host + holder.dataset.url);
    setStatus("connecting");
    socket.onopen = function () {
      attempts = 0;
      setStatus("open");
      document.body.dataset.live = "open";
      refreshAll(); // catch up with whatever changed while we were not listening
    };
    socket.onmessage = function (message) {
      var data;
      try { data = JSON.parse(message.data); } catch (e) { return; }
      if (data && Array.isArray(data.topics)) {
        onTopics(data.topics);
        document.dispatchEvent(new CustomEvent("console:topics", { detail: data }));
      }
    };
    socket.onclose = function (event) {
      document.body.dataset.live = "closed";
      if (event.code === 4401) { location.reload(); return; } // the session ended: sign in
      if (event.code === 4403) { setStatus("closed"); return; }
      setStatus("closed");
      attempts += 1;
      var delay = Math.min(10000, 500 * Math.pow(2, Math.min(attempts, 5))) * (0.5 + Math.random() / 2);
      setTimeout(connect, delay);
    };
  }

  document.addEventListener("DOMContentLoaded", connect);
  window.consoleLive = { refresh: refresh, refreshAll: refreshAll, matches: matches };
})();
