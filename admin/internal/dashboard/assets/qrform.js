// kurz dashboard, QR form: progressive enhancement only. Without this
// file the "Update preview" button draws the preview; with it, the
// preview follows the form as you type (POST /qr/preview draws it on the
// server with the edge's renderer and the API's checks).
"use strict";
(function () {
  var form = document.getElementById("qrform");
  if (!form) { return; }
  var token = form.querySelector("input[name=csrf]").value;
  var box = document.getElementById("qr-preview");
  var t = 0, seq = 0;
  function refresh() {
    clearTimeout(t);
    t = setTimeout(function () {
      var n = ++seq;
      var body = new URLSearchParams(new FormData(form));
      body.delete("csrf");
      fetch("/qr/preview", {
        method: "POST", credentials: "same-origin", body: body,
        headers: { "X-CSRF-Token": token }
      }).then(function (res) {
        if (!res.ok) { throw new Error("status " + res.status); }
        return res.text();
      }).then(function (html) {
        if (n === seq) { box.innerHTML = html; }
      }, function () { /* keep the last preview */ });
    }, 300);
  }
  form.addEventListener("input", refresh);
  form.addEventListener("change", refresh);
  var button = form.querySelector("[data-preview-button]");
  if (button) { button.hidden = true; }
})();
