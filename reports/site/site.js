// The results site's one script: sortable tables and the learning curves' seed toggle.
// Plain JavaScript, no library; the pages read fully without it (the tables start in the report's order).
"use strict";

// The sort key of a cell: its data-value (a number in full; empty sorts last) or, for text columns, its text.
function sortKey(cell, kind) {
  if (kind === "num") {
    const raw = cell.getAttribute("data-value");
    return raw === null || raw === "" ? null : Number(raw);
  }
  return cell.textContent.trim().toLowerCase();
}

function sortBy(table, column, kind, descending) {
  const body = table.tBodies[0];
  const rows = Array.from(body.rows).map(function (row, index) {
    return { row: row, index: index, key: sortKey(row.cells[column], kind) };
  });
  rows.sort(function (a, b) {
    if (a.key === null || b.key === null) {  // no value: last, whichever the direction
      return a.key === b.key ? a.index - b.index : (a.key === null ? 1 : -1);
    }
    const order = a.key < b.key ? -1 : (a.key > b.key ? 1 : 0);
    return (descending ? -order : order) || a.index - b.index;  // stable among equal keys
  });
  rows.forEach(function (r) { body.appendChild(r.row); });
}

function makeSortable(table) {
  const heads = Array.from(table.tHead.rows[0].cells);
  heads.forEach(function (th, column) {
    const kind = th.getAttribute("data-sort");
    const button = th.querySelector("button");
    if (!kind || !button) {
      return;
    }
    button.addEventListener("click", function () {
      // first click: ascending (text, ranks, p-values), then alternate
      const descending = th.getAttribute("aria-sort") === "ascending";
      heads.forEach(function (other) { other.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", descending ? "descending" : "ascending");
      sortBy(table, column, kind, descending);
    });
  });
}

function seedToggle() {
  const box = document.getElementById("show-seeds");
  const panels = document.querySelector(".panels");
  if (!box || !panels) {
    return;
  }
  box.addEventListener("change", function () { panels.classList.toggle("no-seeds", !box.checked); });
}

document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("table.sortable").forEach(makeSortable);
  seedToggle();
});
