(function () {
  "use strict";
  function reveal(id) {
    var target = document.getElementById(id);
    if (!target) { return; }
    var node = target;
    while (node) { if (node.tagName === "DETAILS") { node.open = true; } node = node.parentElement; }
    target.scrollIntoView({block: "center"});
    target.classList.add("flash");
    window.setTimeout(function () { target.classList.remove("flash"); }, 1600);
  }
  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a[data-reveal]") : null;
    if (link) { event.preventDefault(); reveal(link.getAttribute("data-reveal")); return; }
    var button = event.target.closest ? event.target.closest("button[data-toggle]") : null;
    if (button) {
      var open = button.getAttribute("data-toggle") === "open";
      var scope = document.getElementById(button.getAttribute("data-scope")) || document;
      scope.querySelectorAll("details").forEach(function (d) { d.open = open; });
    }
  });
  var saved = [];
  window.addEventListener("beforeprint", function () {
    saved = [];
    document.querySelectorAll("details").forEach(function (d) { saved.push([d, d.open]); d.open = true; });
  });
  window.addEventListener("afterprint", function () {
    saved.forEach(function (pair) { pair[0].open = pair[1]; });
  });
  if (window.location.hash.length > 1) { reveal(window.location.hash.slice(1)); }
})();
