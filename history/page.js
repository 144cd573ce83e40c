// The history page's filters (history/page.py writes the page): a text
// box and a select per context column keep the rows of the verdict map and
// of the change points, and the cells' charts, that match; "only cells that
// changed" narrows the charts and the change points (the verdict map's rows
// are guidelines, not cells: it leaves them). The count says how many
// charts are shown. Without JavaScript every row and chart is shown.
(function () {
  "use strict";
  const filters = Array.from(document.querySelectorAll("#filters [data-filter]"));
  const items = Array.from(document.querySelectorAll("table.verdicts tbody tr, table.changes tbody tr, figure.cell"));
  const charts = items.filter(e => e.matches("figure.cell"));
  const count = document.getElementById("count");

  function keeps(element) {
    return filters.every(f => {
      const name = f.dataset.filter;
      if (name === "text") {
        const text = f.value.trim().toLowerCase();
        return !text || (element.dataset.text || element.textContent).toLowerCase().includes(text);
      }
      if (name === "changed") return !f.checked || element.dataset.changed === undefined || element.dataset.changed === "yes";
      // A row without this column (the verdict map has no op) is not filtered by it.
      return !f.value || element.dataset[name] === undefined || element.dataset[name] === f.value;
    });
  }

  function apply() {
    for (const element of items) element.hidden = !keeps(element);
    const shown = charts.filter(c => !c.hidden).length;
    count.textContent = shown + " of " + charts.length + " cells";
  }

  for (const f of filters) f.addEventListener(f.type === "search" ? "input" : "change", apply);
  apply();
})();
