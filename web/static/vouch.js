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

  // A verification's page: j / k move between the claims, c to the next
  // tool call a check cites (on this page of the timeline, else to the
  // first one's page), r opens the raw evidence of the claim or
  // check in focus (a claim's: its checks'), or the input and output of
  // the call in focus.
  function run() {
    var ledger = document.querySelector("[data-claims]");
    var timeline = document.querySelector(".timeline");
    if (!ledger && !timeline) return;
    function claims() { return ledger ? Array.prototype.slice.call(ledger.querySelectorAll("tr.claim")) : []; }
    function cited() { return Array.prototype.slice.call(document.querySelectorAll(".timeline [data-cited]")); }
    function show(el) {
      el.focus();
      el.scrollIntoView({ block: "nearest" });
    }
    // The element in focus, or else the one the address targets.
    function at(sel) {
      var a = document.activeElement;
      var el = a && a.closest ? a.closest(sel) : null;
      if (!el && location.hash.length > 1) {
        var t = document.getElementById(decodeURIComponent(location.hash.slice(1)));
        if (t && t.matches(sel)) el = t;
      }
      return el;
    }
    function moveClaim(step) {
      var all = claims();
      if (all.length === 0) return;
      var i = all.indexOf(at("tr.claim"));
      i = i < 0 ? (step > 0 ? 0 : all.length - 1) : Math.max(0, Math.min(all.length - 1, i + step));
      show(all[i]);
    }
    function nextCited() {
      var all = cited();
      if (all.length === 0) {
        // None on this page of the timeline: to the page of the first.
        var first = document.querySelector(".first-cited a");
        if (first) location.href = first.href;
        return;
      }
      var cur = at(".call");
      var i = 0;
      if (cur) {
        for (i = 0; i < all.length; i++) {
          if (cur.compareDocumentPosition(all[i]) & Node.DOCUMENT_POSITION_FOLLOWING) break;
        }
        if (i === all.length) i = 0;
      }
      show(all[i]);
    }
    function openRaw() {
      var row = at("tr.claim, tr.check, .call");
      if (!row) return;
      var targets = [];
      if (row.matches("tr.claim")) {
        row.querySelectorAll('a[href^="#check-"]').forEach(function (a) {
          var c = document.getElementById(a.getAttribute("href").slice(1));
          if (c) targets.push(c);
        });
      } else {
        targets.push(row);
      }
      targets.forEach(function (t) {
        t.querySelectorAll("details.raw, details.io").forEach(function (d) { d.open = true; });
      });
      if (targets.length > 0 && targets[0] !== row) show(targets[0]);
    }
    document.addEventListener("keydown", function (e) {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      var t = e.target;
      if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) return;
      switch (e.key) {
        case "j": moveClaim(1); break;
        case "k": moveClaim(-1); break;
        case "c": nextCited(); break;
        case "r": openRaw(); break;
        default: return;
      }
      e.preventDefault();
    });
  }

  document.addEventListener("htmx:afterSettle", live);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { live(); review(); run(); });
  } else { live(); review(); run(); }
})();
