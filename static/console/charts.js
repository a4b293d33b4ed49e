/* Draw every chart of the page with Plotly (from the installed plotly package).
 *
 * Markup: <div class="chart" data-figure="ID"></div> plus a json_script with that id holding
 * {"data": [...], "layout": {...}}. Charts are drawn on load and after every htmx swap
 * (live refreshes), with Plotly.react so the user's zoom survives (layout.uirevision), and
 * recoloured when the theme changes.
 */
(function () {
  "use strict";

  function themeColors() {
    var css = getComputedStyle(document.documentElement);
    return {
      ink: css.getPropertyValue("--ink").trim() || "#1d2430",
      line: css.getPropertyValue("--line").trim() || "#e3e6eb",
      muted: css.getPropertyValue("--muted").trim() || "#5b6575"
    };
  }

  function draw(el) {
    var source = document.getElementById(el.dataset.figure);
    if (!source || !window.Plotly) { return; }
    var figure;
    try { figure = JSON.parse(source.textContent); } catch (e) { return; }
    var colors = themeColors();
    var layout = Object.assign({}, figure.layout || {});
    layout.font = Object.assign({ color: colors.ink, size: 12 }, layout.font || {});
    ["xaxis", "yaxis", "xaxis2", "yaxis2"].forEach(function (axis) {
      if (layout[axis] !== undefined || axis === "xaxis" || axis === "yaxis") {
        layout[axis] = Object.assign({ gridcolor: colors.line, zerolinecolor: colors.line,
          linecolor: colors.line }, layout[axis] || {});
      }
    });
    var config = Object.assign({ responsive: true, displaylogo: false,
      modeBarButtonsToRemove: ["lasso2d", "select2d"] }, figure.config || {});
    window.Plotly.react(el, figure.data || [], layout, config);
  }

  function drawAll(root) {
    (root || document).querySelectorAll(".chart[data-figure]").forEach(draw);
  }

  document.addEventListener("DOMContentLoaded", function () { drawAll(document); });
  document.addEventListener("htmx:afterSettle", function (event) { drawAll(event.detail.elt); });
  document.addEventListener("console:theme", function () { drawAll(document); });
  window.consoleCharts = { draw: draw, drawAll: drawAll };
})();
