// kurz dashboard: progressive enhancement only. Every page works without
// this file; it adds copy buttons and the link table's "select all"
// (hidden until this script shows them).
"use strict";
(function () {
  var live = document.getElementById("live");

  function announce(text) {
    if (live) { live.textContent = ""; setTimeout(function () { live.textContent = text; }, 50); }
  }

  // copyText copies text with the Clipboard API where the page may use it
  // (https, localhost), else through a temporary selection.
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.className = "visually-hidden";
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      document.body.removeChild(area);
      if (ok) { resolve(); } else { reject(new Error("copy failed")); }
    });
  }

  document.querySelectorAll("[data-copy]").forEach(function (b) { b.hidden = false; });

  // A link's QR thumbnail comes from the edge; one the browser could not
  // load (the edge unreachable from here, or not yet aware of a link just
  // made) is taken away rather than left as an empty frame.
  function dropThumb(img) {
    var a = img.closest(".qr-thumb a");
    if (a) { a.hidden = true; }
  }
  document.querySelectorAll(".qr-thumb img").forEach(function (img) {
    if (img.complete && img.naturalWidth === 0) { dropThumb(img); }
  });
  document.addEventListener("error", function (ev) {
    if (ev.target.matches && ev.target.matches(".qr-thumb img")) { dropThumb(ev.target); }
  }, true);

  // "Select all on this page" of the link table: ticks every row's box.
  document.querySelectorAll("[data-select-all]").forEach(function (all) {
    var form = all.form;
    all.closest("label").hidden = false;
    all.addEventListener("change", function () {
      form.querySelectorAll("input[name=id]").forEach(function (b) { b.checked = all.checked; });
    });
    form.addEventListener("change", function (ev) {
      if (ev.target.name !== "id") { return; }
      var boxes = Array.prototype.slice.call(form.querySelectorAll("input[name=id]"));
      all.checked = boxes.every(function (b) { return b.checked; });
    });
  });

  document.addEventListener("click", function (ev) {
    var b = ev.target.closest("[data-copy]");
    if (!b) { return; }
    var label = b.getAttribute("data-label") || b.textContent;
    b.setAttribute("data-label", label);
    copyText(b.getAttribute("data-copy")).then(function () {
      b.textContent = "Copied";
      announce("Copied to the clipboard");
    }, function () {
      b.textContent = "Copy failed";
      announce("Could not copy; select the text and copy it yourself");
    }).then(function () {
      setTimeout(function () { b.textContent = label; }, 1800);
    });
  });
})();
