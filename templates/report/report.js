// report.html behaviour: hovering a task in the graph or the table highlights it in both,
// with the data edges into and out of it. The page is complete without it.
(function () {
  "use strict";
  function byTask(name) {
    return Array.prototype.filter.call(document.querySelectorAll("[data-task]"), function (el) {
      return el.getAttribute("data-task") === name;
    });
  }
  function edgesOf(name) {
    return Array.prototype.filter.call(document.querySelectorAll("#task-graph .edge"), function (el) {
      return el.getAttribute("data-src") === name || el.getAttribute("data-dst") === name;
    });
  }
  function highlight(name, on) {
    byTask(name).concat(edgesOf(name)).forEach(function (el) {
      el.classList.toggle("hl", on);
    });
  }
  document.querySelectorAll("#task-graph .node, tr.task").forEach(function (el) {
    var name = el.getAttribute("data-task");
    el.addEventListener("mouseenter", function () { highlight(name, true); });
    el.addEventListener("mouseleave", function () { highlight(name, false); });
  });
})();
