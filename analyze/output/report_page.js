// report.html's script (analyze/output/report_blocks.R puts it inline):
// the tables marked data-explore sort by a click on a header (numbers as
// numbers) and filter by a text box and one select per column of few
// values; numbers are right-aligned; a link to a heading inside a closed
// <details> opens it. Without it the page reads the same, unsorted.
(function () {
  "use strict";
  // A number at the start of a cell, alone or before a space, "/", "[",
  // "(", "%" or a dash: "1.234", "8/8", "1.31-1.55", "2.5e-05"; not "1x4".
  var NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?(?![\w.])/;
  function text(row, column) { return row.cells[column].textContent.trim(); }
  function number(value) { var m = NUMBER.exec(value); return m ? parseFloat(m[0]) : NaN; }

  // Which columns hold numbers only (empty cells aside); their cells are
  // right-aligned.
  function alignNumbers(table) {
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var numeric = Array.prototype.map.call(table.tHead.rows[0].cells, function (th, c) {
      var values = rows.map(function (r) { return text(r, c); }).filter(Boolean);
      return values.length > 0 && values.every(function (v) { return !isNaN(number(v)); });
    });
    rows.forEach(function (r) {
      numeric.forEach(function (isNumber, c) { if (isNumber) r.cells[c].classList.add("number"); });
    });
    return numeric;
  }

  function explore(table) {
    var head = table.tHead.rows[0], body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
    var names = Array.prototype.map.call(head.cells, function (th) { return th.textContent; });
    var numeric = alignNumbers(table);

    Array.prototype.forEach.call(head.cells, function (th, c) {
      th.classList.add("sortable");
      th.tabIndex = 0;
      th.title = "sort by " + names[c];
      function sort() {
        var up = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(head.cells, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", up ? "ascending" : "descending");
        rows.slice().sort(function (a, b) {
          var x = text(a, c), y = text(b, c), order;
          if (!x || !y) return (!x) - (!y);  // empty cells last, either way
          order = numeric[c] ? number(x) - number(y) : x.localeCompare(y, undefined, { numeric: true });
          return up ? order : -order;
        }).forEach(function (r) { body.appendChild(r); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); }
      });
    });

    var bar = document.createElement("div"), search = document.createElement("input");
    var shown = document.createElement("span");
    bar.className = "filters";
    search.type = "search";
    search.placeholder = "filter rows";
    search.setAttribute("aria-label", "filter the rows of this table");
    shown.className = "shown";
    bar.appendChild(search);
    var selects = [];
    names.forEach(function (name, c) {
      var values = Array.from(new Set(rows.map(function (r) { return text(r, c); }))).filter(Boolean);
      if (numeric[c] || !values.length || values.length > 40) return;
      var select = document.createElement("select");
      select.dataset.column = name;
      select.setAttribute("aria-label", name);
      select.add(new Option(name + ": all", ""));
      values.sort(function (x, y) { return x.localeCompare(y, undefined, { numeric: true }); })
        .forEach(function (v) { select.add(new Option(v, v)); });
      select.addEventListener("change", filter);
      selects.push({ select: select, column: c });
      bar.appendChild(select);
    });
    bar.appendChild(shown);
    function filter() {
      var words = search.value.toLowerCase().trim(), count = 0;
      rows.forEach(function (r) {
        var keep = (!words || r.textContent.toLowerCase().indexOf(words) >= 0) &&
          selects.every(function (s) { return !s.select.value || text(r, s.column) === s.select.value; });
        r.hidden = !keep;
        count += keep;
      });
      shown.textContent = count + " of " + rows.length + " rows";
    }
    search.addEventListener("input", filter);
    filter();
    table.parentNode.parentNode.insertBefore(bar, table.parentNode);
  }

  document.querySelectorAll("table[data-explore]").forEach(explore);
  document.querySelectorAll("table:not([data-explore])").forEach(alignNumbers);

  function reveal() {
    var target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    for (var e = target; e; e = e.parentElement) if (e.tagName === "DETAILS") e.open = true;
    if (target) target.scrollIntoView();
  }
  window.addEventListener("hashchange", reveal);
  reveal();
})();
