"""Inline SVG charts for the offline HTML audit report (no scripts, no fetches).

Charts are plain SVG strings built from escaped labels, returned as
``markupsafe.Markup`` so the Jinja template can embed them directly. Each
bar carries a ``<title>`` so hovering shows the exact value.
"""

from __future__ import annotations

from markupsafe import Markup, escape

PALETTE = {
    "allowed": "#2e7d32",
    "redacted": "#f9a825",
    "denied": "#c62828",
    "abstained": "#6a1b9a",
}
DEFAULT_COLOUR = "#1565c0"
_FONT = 'font-family="system-ui, sans-serif" font-size="11"'


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.4g}"


def _empty(width: int, message: str) -> Markup:
    return Markup(
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="40" viewBox="0 0 {width} 40">'
        f'<text x="8" y="24" {_FONT} fill="#666">{escape(message)}</text></svg>'
    )


#: Approximate width of one character of the 12 px label font, and the widest label column.
_CHAR_PX = 7
_MAX_LABEL_PX = 380


def horizontal_bars(items: list[tuple[str, float]], *, title: str, width: int = 640, colour: str = DEFAULT_COLOUR) -> Markup:
    """One labelled horizontal bar per item, scaled to the largest value (outcome labels get their colour)."""
    if not items:
        return _empty(width, "no data")
    longest = max(len(label) for label, _ in items)
    label_width, bar_height, gap = min(_MAX_LABEL_PX, max(120, longest * _CHAR_PX + 12)), 18, 6
    fits = (label_width - 12) // _CHAR_PX
    width = max(width, label_width + 360)
    largest = max(value for _, value in items) or 1.0
    plot = width - label_width - 80
    height = len(items) * (bar_height + gap) + gap
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{escape(title)}" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}"><title>{escape(title)}</title>'
    ]
    for index, (label, value) in enumerate(items):
        y = gap + index * (bar_height + gap)
        length = max(plot * value / largest, 1.0)
        parts.append(
            f'<text x="{label_width - 6}" y="{y + 13}" text-anchor="end" {_FONT}>{escape(label if len(label) <= fits else label[: fits - 1] + "…")}</text>'
            f'<rect x="{label_width}" y="{y}" width="{length:.1f}" height="{bar_height}" fill="{PALETTE.get(label, colour)}">'
            f"<title>{escape(label)}: {_number(value)}</title></rect>"
            f'<text x="{label_width + length + 4:.1f}" y="{y + 13}" {_FONT}>{_number(value)}</text>'
        )
    parts.append("</svg>")
    return Markup("".join(parts))


def stacked_columns(
    buckets: list[str], series: dict[str, list[int]], *, title: str, width: int = 720, height: int = 220
) -> Markup:
    """Stacked columns per time bucket (one colour per series) with a legend."""
    if not buckets:
        return _empty(width, "no decisions in range")
    left, bottom, top = 40, 40, 24
    plot_width, plot_height = width - left - 10, height - bottom - top
    totals = [sum(values[i] for values in series.values()) for i in range(len(buckets))]
    largest = max(totals) or 1
    step = plot_width / len(buckets)
    column = min(max(step * 0.8, 1.0), 48.0)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{escape(title)}" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}"><title>{escape(title)}</title>',
        f'<line x1="{left}" y1="{top + plot_height}" x2="{width - 10}" y2="{top + plot_height}" stroke="#999"/>',
        f'<text x="{left - 4}" y="{top + 4}" text-anchor="end" {_FONT}>{largest}</text>',
        f'<text x="{left - 4}" y="{top + plot_height}" text-anchor="end" {_FONT}>0</text>',
    ]
    label_every = max(1, len(buckets) // 8)
    for index, bucket in enumerate(buckets):
        x = left + index * step + (step - column) / 2
        y = top + plot_height
        for name, values in series.items():
            value = values[index]
            if not value:
                continue
            h = plot_height * value / largest
            y -= h
            parts.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{column:.1f}" height="{h:.1f}" '
                f'fill="{PALETTE.get(name, DEFAULT_COLOUR)}"><title>{escape(bucket)} {escape(name)}: {value}</title></rect>'
            )
        if index % label_every == 0:
            parts.append(
                f'<text x="{x + column / 2:.1f}" y="{top + plot_height + 14}" text-anchor="middle" {_FONT}>{escape(bucket)}</text>'
            )
    for index, name in enumerate(series):
        x = left + index * 110
        parts.append(
            f'<rect x="{x}" y="{height - 14}" width="10" height="10" fill="{PALETTE.get(name, DEFAULT_COLOUR)}"/>'
            f'<text x="{x + 14}" y="{height - 5}" {_FONT}>{escape(name)}</text>'
        )
    parts.append("</svg>")
    return Markup("".join(parts))
