// kurz dashboard, splash page and overlay forms: progressive enhancement
// only. Without this file the "Update preview" button shows the typed
// values in the preview; with it, the preview follows the form as you
// type (the frame loads GET <kind>/preview with the form's values, which
// the edge's own templates render).
"use strict";
(function () {
  var form = document.getElementById("vpform");
  var frame = document.getElementById("vp-preview");
  if (!form || !frame) { return; }
  var base = frame.getAttribute("src").split("?")[0];
  var t = 0;
  function address() {
    var q = new URLSearchParams(new FormData(form));
    ["csrf", "do", "name"].forEach(function (n) { q.delete(n); });
    return base + "?" + q.toString();
  }
  function show() { frame.setAttribute("src", address()); }
  function later() { clearTimeout(t); t = setTimeout(show, 300); }
  form.addEventListener("input", later);
  form.addEventListener("change", later);
  var button = form.querySelector("[data-preview-button]");
  if (button) {
    button.textContent = "Replay preview";
    button.addEventListener("click", function (e) { e.preventDefault(); show(); });
  }
})();
