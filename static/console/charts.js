/* Draw every chart of the page with Plotly (from the installed plotly package).
 *
 * Markup: <div class="chart" data-figure="ID"></div> plus a json_script with that id holding
 * {"data": [...], "layout": {...}}. Charts are drawn on load and after every htmx swap
 * (live refreshes), with Plotly.react, and recoloured when the theme changes. Until a
 * refreshed chart is drawn, the previous drawing stays in its place (never a blank card).
 *
 * The user's view survives a live refresh: layout.uirevision keeps it while the same element
 * is redrawn, and since a refresh swaps in a new element, the axes ranges the user zoomed to
 * and the traces hidden in the legend are remembered per figure id (and uirevision) and put
 * back on the new element.
 *
 * A chart with data-click-url opens the clicked cell's page (see clickable below).
 *
 * Export: every chart's modebar has "Download data as CSV" (its traces as series,x,y rows:
 * the same table as the server's figure_csv) next to Plotly's own PNG button.
 */
(function () {
  "use strict";

  var views = {}; // figure id -> {rev, axes: {"xaxis.range": [...]}, hidden: {name: "legendonly"}}

  function themeColors() {
    var css = getComputedStyle(document.documentElement);
    return {
      ink: css.getPropertyValue("--ink").trim() || "#1d2430",
      line: css.getPropertyValue("--line").trim() || "#e3e6eb",
      muted: css.getPropertyValue("--muted").trim() || "#5b6575"
    };
  }

  function csvCell(value) {
    if (value === null || value === undefined) { return ""; }
    var text = String(value);
    return /[",\n\r]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
  }

  function figureCsv(gd) {
    var rows = [["series", "x", "y"]];
    (gd.data || []).forEach(function (trace, index) {
      var name = trace.name || ("trace " + index);
      var ys = trace.y ? Array.prototype.slice.call(trace.y) : [];
      var xs = trace.x ? Array.prototype.slice.call(trace.x) : ys.map(function (_v, i) { return i; });
      if (!ys.length) { ys = xs.map(function () { return null; }); }
      for (var i = 0; i < Math.min(xs.length, ys.length); i++) { rows.push([name, xs[i], ys[i]]); }
    });
    return rows.map(function (row) { return row.map(csvCell).join(","); }).join("\n") + "\n";
  }

  function downloadCsv(gd) {
    var blob = new Blob([figureCsv(gd)], { type: "text/csv;charset=utf-8" });
    var link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = (gd.dataset.figure || "chart") + ".csv";
    document.body.appendChild(link);
    link.click();
    setTimeout(function () { URL.revokeObjectURL(link.href); link.remove(); }, 0);
  }

  // The button's words come translated from the page (base.html's data-chart-csv).
  var CSV_BUTTON = {
    name: "downloadCsv",
    title: document.documentElement.dataset.chartCsv || "Download data as CSV",
    icon: { width: 1000, height: 1000,
      path: "M450 100h100v450l150-150 70 70-270 270-270-270 70-70 150 150z M150 850h700v100h-700z" },
    click: downloadCsv
  };

  function remember(el) {
    if (el.dataset.watched) { return; }
    el.dataset.watched = "1";
    el.on("plotly_relayout", function (change) {
      var id = el.dataset.figure;
      var view = views[id] = views[id] || { axes: {}, hidden: {} };
      view.rev = el.layout && el.layout.uirevision;
      Object.keys(change).forEach(function (key) {
        var axis = key.split(".")[0];
        if (!/^[xy]axis\d*$/.test(axis)) { return; }
        if (/\.autorange$/.test(key)) { delete view.axes[axis]; return; }
        var range = el.layout[axis] && el.layout[axis].range;
        if (range) { view.axes[axis] = range.slice(); }
      });
    });
    el.on("plotly_restyle", function () {
      var id = el.dataset.figure;
      var view = views[id] = views[id] || { axes: {}, hidden: {} };
      view.rev = el.layout && el.layout.uirevision;
      view.hidden = {};
      (el.data || []).forEach(function (trace) {
        if (trace.name) { view.hidden[trace.name] = trace.visible === undefined ? true : trace.visible; }
      });
    });
  }

  // A chart with data-click-url opens a cell: the URL with "__cell__" replaced by the clicked
  // cell's name (customdata[0]), e.g. a group of the nodes heat map or one of its nodes.
  function clickable(el) {
    if (!el.dataset.clickUrl || el.dataset.clickable) { return; }
    el.dataset.clickable = "1";
    el.on("plotly_click", function (event) {
      var point = event && event.points && event.points[0];
      var cell = point && point.customdata;
      if (!cell || cell[0] === undefined || cell[0] === null) { return; }
      window.location.assign(el.dataset.clickUrl.replace("__cell__", encodeURIComponent(String(cell[0]))));
    });
  }

  // Plotly never wraps a title and draws a long legend past the edge: on a narrow chart (a
  // phone) the title and its note are broken into lines that fit, the top margin grows to
  // hold them, and the legend goes under the plot in small type.
  var NARROW = 600;

  // Lines of at most the chart's width: words stay whole, while Chinese, Japanese and Korean
  // text (no spaces, each character about two Latin letters wide) breaks between characters.
  var WIDE = /[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/;

  function wrap(text, width, charPx) {
    var most = Math.max(12, Math.floor((width - 24) / charPx));
    var lines = [];
    String(text).split("<br>").forEach(function (part) {
      var line = "";
      var size = 0;
      (part.match(/[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]|[^\s\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]+|\s+/g) || []).forEach(function (piece) {
        var wide = WIDE.test(piece);
        var cost = wide ? 2 : piece.length;
        if (/^\s+$/.test(piece)) {
          if (line) { line += " "; size += 1; }
          return;
        }
        if (line && size + cost > most) { lines.push(line.replace(/\s+$/, "")); line = ""; size = 0; }
        line += piece;
        size += cost;
      });
      lines.push(line.replace(/\s+$/, ""));
    });
    return lines;
  }

  function fitNarrow(layout, width) {
    if (!width || width >= NARROW) { return layout; }
    var title = layout.title && typeof layout.title === "object" ? Object.assign({}, layout.title) : null;
    var top = 16;
    if (title && title.text) {
      var lines = wrap(title.text, width, 7.6);
      title.text = lines.join("<br>");
      top += lines.length * 20;
      if (title.subtitle && title.subtitle.text) {
        var notes = wrap(title.subtitle.text, width, 5.8);
        title.subtitle = Object.assign({}, title.subtitle, { text: notes.join("<br>") });
        top += notes.length * 16 + 6;
      }
      layout.title = title;
    }
    var given = (layout.margin && layout.margin.t) || 0;
    var needed = Math.max(top + 10, given, 24);
    layout.margin = Object.assign({}, layout.margin || {}, { l: 40, r: 8, t: needed });
    layout.legend = Object.assign({}, layout.legend || {}, {
      orientation: "h", x: 0, xanchor: "left", y: -0.22, yanchor: "top", font: { size: 10 },
    });
    if (layout.height) { layout.height = layout.height + Math.max(0, needed - given); }
    return layout;
  }

  function draw(el) {
    var source = document.getElementById(el.dataset.figure);
    if (!source || !window.Plotly) { return; }
    var figure;
    try { figure = JSON.parse(source.textContent); } catch (e) { return; }
    var colors = themeColors();
    var layout = Object.assign({}, figure.layout || {});
    var data = figure.data || [];
    layout.font = Object.assign({ color: colors.ink, size: 12 }, layout.font || {});
    ["xaxis", "yaxis", "xaxis2", "yaxis2"].forEach(function (axis) {
      if (layout[axis] !== undefined || axis === "xaxis" || axis === "yaxis") {
        layout[axis] = Object.assign({ gridcolor: colors.line, zerolinecolor: colors.line,
          linecolor: colors.line }, layout[axis] || {});
      }
    });
    layout = fitNarrow(layout, el.clientWidth);
    var view = views[el.dataset.figure];
    if (view && !el.dataset.watched && view.rev === layout.uirevision) {
      // A fresh element (a live refresh swapped it in): give it the user's view back.
      Object.keys(view.axes).forEach(function (axis) {
        layout[axis] = Object.assign({}, layout[axis] || {}, { range: view.axes[axis].slice(), autorange: false });
      });
      data = data.map(function (trace) {
        return trace.name && view.hidden[trace.name] !== undefined ?
          Object.assign({}, trace, { visible: view.hidden[trace.name] }) : trace;
      });
    }
    var config = Object.assign({ responsive: true, displaylogo: false,
      modeBarButtonsToRemove: ["lasso2d", "select2d"] }, figure.config || {});
    // Never remove Plotly's PNG button (toImage); always add the CSV one. Never offer
    // "Share chart..." (sendChartToCloud): it uploads the cluster's figures to Plotly Cloud.
    config.modeBarButtonsToRemove = (config.modeBarButtonsToRemove || []).filter(function (b) {
      return b !== "toImage";
    }).concat(["sendChartToCloud"]);
    config.modeBarButtonsToAdd = (config.modeBarButtonsToAdd || []).concat([CSV_BUTTON]);
    window.Plotly.react(el, data, layout, config).then(function () {
      remember(el);
      clickable(el);
      var stale = el.querySelector(":scope > .chart-stale");
      if (stale) { stale.remove(); } // the fresh drawing is in: the picture under it goes
    });
  }

  function drawAll(root) {
    (root || document).querySelectorAll(".chart[data-figure]").forEach(draw);
  }

  // A live refresh swaps a region for a fresh copy whose charts are empty until Plotly has
  // drawn them: for a moment the card was blank. The last drawing (its SVG) stays inside the
  // fresh chart, under Plotly's, until the fresh one is drawn: the card never blanks.
  var leaving = {}; // figure id -> the drawn chart of a region being swapped out
  document.addEventListener("htmx:beforeSwap", function (event) {
    var region = event.detail.elt;
    if (!region || !region.querySelectorAll) { return; }
    region.querySelectorAll(".chart[data-figure]").forEach(function (chart) {
      var picture = chart.querySelector(".svg-container");
      if (picture) { leaving[chart.dataset.figure] = picture; }
    });
  });
  document.addEventListener("htmx:afterSwap", function () {
    Object.keys(leaving).forEach(function (id) {
      var picture = leaving[id];
      var fresh = document.querySelector('.chart[data-figure="' + CSS.escape(id) + '"]');
      if (fresh && !fresh.contains(picture) && !fresh.querySelector(".svg-container")) {
        var stale = document.createElement("div");
        stale.className = "chart-stale";
        stale.setAttribute("aria-hidden", "true");
        stale.appendChild(picture);
        fresh.appendChild(stale);
      }
    });
    leaving = {};
  });

  document.addEventListener("DOMContentLoaded", function () { drawAll(document); });
  document.addEventListener("htmx:afterSettle", function (event) { drawAll(event.detail.elt); });
  document.addEventListener("console:theme", function () { drawAll(document); });
  window.consoleCharts = { draw: draw, drawAll: drawAll, csv: figureCsv };
})();
