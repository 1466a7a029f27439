"""A table a reader can filter and sort in the HTML book, with no request to another host.

The error-analysis chapters list every wrong answer or missed page; :class:`FilterableTable` shows such a
list as a plain HTML table with a filter box (rows whose text contains every typed word stay) and
sortable columns (click a header; numbers sort as numbers).  The script is a few lines included with
the table, so the page works offline.  Columns named in ``html_columns`` hold HTML that is shown as it is
(a rendered proof or tree, folded in a ``<details>`` element); every other cell is escaped.
"""
from __future__ import annotations

import hashlib
import html
from typing import Sequence

_SCRIPT = """<script>
(function () {
  function cellValue(row, column) {
    var text = row.cells[column].getAttribute('data-sort') || row.cells[column].textContent;
    var number = parseFloat(text);
    return isNaN(number) ? text.toLowerCase() : number;
  }
  document.querySelectorAll('div.pb-filterable').forEach(function (box) {
    if (box.dataset.ready) { return; }
    box.dataset.ready = '1';
    var table = box.querySelector('table'), body = table.tBodies[0], count = box.querySelector('.pb-count');
    var rows = Array.prototype.slice.call(body.rows);
    function show() {
      var words = box.querySelector('input').value.toLowerCase().split(/\\s+/).filter(Boolean), shown = 0;
      rows.forEach(function (row) {
        var text = row.textContent.toLowerCase();
        var keep = words.every(function (word) { return text.indexOf(word) >= 0; });
        row.style.display = keep ? '' : 'none';
        shown += keep ? 1 : 0;
      });
      count.textContent = shown + ' of ' + rows.length + ' rows';
    }
    box.querySelector('input').addEventListener('input', show);
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, column) {
      header.style.cursor = 'pointer';
      header.addEventListener('click', function () {
        var up = header.dataset.order !== 'up';
        header.dataset.order = up ? 'up' : 'down';
        rows.sort(function (a, b) {
          var x = cellValue(a, column), y = cellValue(b, column);
          return (x < y ? -1 : x > y ? 1 : 0) * (up ? 1 : -1);
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
    show();
  });
})();
</script>"""


class FilterableTable:
    """``rows`` (dicts with the same keys) as a filterable, sortable HTML table; ``html_columns`` hold HTML."""

    def __init__(self, rows: Sequence[dict], html_columns: Sequence[str] = (), caption: str = ""):
        self.rows, self.html_columns, self.caption = list(rows), set(html_columns), caption
        self.columns = list(self.rows[0]) if self.rows else []
        missing = [c for c in self.html_columns if c not in self.columns]
        if missing:
            raise ValueError(f"FilterableTable: html_columns {missing} are not columns of the rows {self.columns}")

    def _cell(self, column: str, value) -> str:
        if column in self.html_columns:
            return f"<td><details><summary>show</summary>{value}</details></td>"
        sort = f' data-sort="{value}"' if isinstance(value, (int, float)) and not isinstance(value, bool) else ""
        return f"<td{sort}>{html.escape(str(value))}</td>"

    def to_html(self) -> str:
        """The table as one HTML block, with a filter box and the script that filters and sorts the rows."""
        head = "".join(f"<th>{html.escape(str(c))}</th>" for c in self.columns)
        body = "".join("<tr>" + "".join(self._cell(c, row.get(c, "")) for c in self.columns) + "</tr>"
                       for row in self.rows)
        caption = f"<caption>{html.escape(self.caption)}</caption>" if self.caption else ""
        ident = hashlib.sha1((head + body).encode("utf-8")).hexdigest()[:10]
        return (f'<div class="pb-filterable" id="pb-table-{ident}">'
                '<p><input type="search" placeholder="filter: type words that a row must contain" '
                'aria-label="filter rows" style="width:60%"> <span class="pb-count"></span></p>'
                f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>{_SCRIPT}")

    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        return f"FilterableTable({len(self.rows)} rows x {len(self.columns)} columns)"
