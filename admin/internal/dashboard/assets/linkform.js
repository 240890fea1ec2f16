// kurz dashboard, link form: progressive enhancement only. Without this
// file the "Update preview" button shows the preview and the alias is
// checked when the form is saved. With it, the preview follows the form
// as you type (POST /links/preview renders it on the server with the
// edge's own targeting code) and the custom alias is checked as you type
// (GET /links/alias).
"use strict";
(function () {
  var form = document.getElementById("linkform");
  if (!form) { return; }
  var token = form.querySelector("input[name=csrf]").value;

  function debounce(fn, ms) {
    var t = 0;
    return function () { clearTimeout(t); t = setTimeout(fn, ms); };
  }

  // Preview.
  var box = document.getElementById("preview");
  var seq = 0;
  var refresh = debounce(function () {
    var n = ++seq;
    var body = new URLSearchParams(new FormData(form));
    body.delete("csrf");
    body.delete("password");
    fetch("/links/preview", {
      method: "POST", credentials: "same-origin", body: body,
      headers: { "X-CSRF-Token": token }
    }).then(function (res) {
      if (!res.ok) { throw new Error("status " + res.status); }
      return res.text();
    }).then(function (html) {
      if (n === seq) { box.innerHTML = html; }
    }, function () { /* keep the last preview; the button still works */ });
  }, 350);
  form.addEventListener("input", function (ev) {
    if (ev.target.id !== "f-custom") { refresh(); }
  });
  form.addEventListener("change", refresh);
  var button = form.querySelector("[data-preview-button]");
  if (button) { button.hidden = true; }

  // Alias availability.
  var alias = document.getElementById("f-custom");
  var domain = document.getElementById("f-domain");
  var status = document.getElementById("f-custom-status");
  if (!alias || !status) { return; }
  var aseq = 0;
  function show(kind, text) {
    status.className = "alias-status alias-" + kind;
    status.textContent = text;
  }
  var check = debounce(function () {
    var v = alias.value.trim();
    var n = ++aseq;
    if (v === "" || v === alias.getAttribute("data-current")) { show("none", ""); return; }
    var q = new URLSearchParams({ custom: v, domain: domain ? domain.value : "" });
    fetch("/links/alias?" + q.toString(), { credentials: "same-origin" }).then(function (res) {
      return res.json();
    }).then(function (r) {
      if (n !== aseq) { return; }
      var msg = (r.message || "").replace(/^[a-z_.\[\]0-9]+: /, "");
      if (r.status === "available") { show("ok", "“" + v + "” is available."); }
      else if (r.status === "taken") { show("bad", "“" + v + "” is already taken."); }
      else if (r.status === "invalid") { show("bad", msg.charAt(0).toUpperCase() + msg.slice(1) + "."); }
      else { show("none", "Could not check the alias now; it is checked when you save."); }
    }, function () { if (n === aseq) { show("none", ""); } });
  }, 300);
  alias.addEventListener("input", check);
  if (domain) { domain.addEventListener("change", check); }
})();
