// vouch dashboard: enhancements only. Every page works without this file.
(function () {
  "use strict";

  // The live list: a region marked data-live refreshes (through htmx)
  // when the server says the tenant's log changed. The body's
  // data-stream says whether the stream is open ("open"), or being
  // opened again after a break ("connecting"); the browser tests wait
  // on it. The stream is opened once a live region is there: on load,
  // or after a swap brought one (a filter sent from an older page, which
  // is not live, brings the newest rows, which are).
  var es = null;
  function live() {
    if (es || !window.EventSource || !document.querySelector("[data-live]")) return;
    es = new EventSource("/ui/events");
    document.body.dataset.stream = "connecting";
    es.addEventListener("open", function () { document.body.dataset.stream = "open"; });
    es.addEventListener("error", function () {
      document.body.dataset.stream = es.readyState === EventSource.CLOSED ? "closed" : "connecting";
    });
    es.addEventListener("changed", function () {
      // Looked up each time: a swap replaces the element.
      var el = document.querySelector("[data-live]");
      if (el && window.htmx) window.htmx.trigger(el, "vouch:changed");
    });
    window.addEventListener("pagehide", function () { es.close(); });
  }

  // The review queue: j / k move between items, a accepts, o opens the
  // override form, s skips to the next item.
  function review() {
    var queue = document.querySelector("[data-queue]");
    if (!queue) return;
    function items() { return Array.prototype.slice.call(queue.querySelectorAll(".item")); }
    function current() {
      var all = items();
      for (var i = 0; i < all.length; i++) {
        if (all[i].contains(document.activeElement)) return i;
      }
      return -1;
    }
    function focusAt(i) {
      var all = items();
      if (all.length === 0) return;
      i = Math.max(0, Math.min(all.length - 1, i));
      all[i].focus();
      all[i].scrollIntoView({ block: "nearest" });
    }
    var first = items()[0];
    if (first && (document.activeElement === document.body || !document.activeElement)) first.focus();
    document.addEventListener("keydown", function (e) {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      var t = e.target;
      if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) return;
      var i = current();
      switch (e.key) {
        case "j": focusAt(i + 1); break;
        case "k": focusAt(i - 1); break;
        case "s": focusAt(i + 1); break;
        case "a":
          if (i < 0) return;
          var accept = items()[i].querySelector("form[data-accept]");
          if (accept) accept.requestSubmit();
          break;
        case "o":
          if (i < 0) return;
          var d = items()[i].querySelector("details");
          if (d) d.open = true;
          var sel = items()[i].querySelector("details select");
          if (sel) sel.focus();
          break;
        default: return;
      }
      e.preventDefault();
    });
  }

  document.addEventListener("htmx:afterSettle", live);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { live(); review(); });
  } else { live(); review(); }
})();
