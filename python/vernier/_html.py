"""Jupyter's HTML views (``_repr_html_``) of studies and trials: a titled
table of names and values, escaped."""

from __future__ import annotations

import html
from typing import Any, Iterable, Tuple


def key_value_table(css_class: str, title: str, rows: Iterable[Tuple[Any, Any]]) -> str:
    """``<div class=CSS_CLASS><b>TITLE</b><table>`` a row per (name, value)."""
    body = "".join(f"<tr><th style='text-align:left'>{html.escape(str(key))}</th>"
                   f"<td style='text-align:left'>{html.escape(str(value))}</td></tr>"
                   for key, value in rows)
    return f"<div class='{css_class}'><b>{html.escape(title)}</b><table>{body}</table></div>"
