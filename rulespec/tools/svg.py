"""Small SVG charts written by hand: bars with error bars (upright or lying), and a histogram.

Our own instead of matplotlib: no heavy dependency to install, and each chart is a few lines of
inline SVG text, so a page that holds them stays one self-contained file (no image files, no
scripts, no fonts or styles fetched from anywhere).  Values are plain numbers; ``percent``
charts take fractions (0.5) and label them as percentages.
"""
from __future__ import annotations

import math
from html import escape
from typing import Optional, Sequence

PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1")
FONT = 'font-family="sans-serif" font-size="12"'


def nice_ticks(top: float, count: int = 5, whole: bool = False) -> list:
    """Round tick values from 0 to at least `top` (whole: whole-number steps, for counts)."""
    if top <= 0:
        return [0, 1]
    raw = top / count
    if whole:
        raw = max(1, raw)
    mag = 10 ** math.floor(math.log10(raw))
    steps = (1, 2, 5, 10) if whole else (1, 2, 2.5, 5, 10)
    step = next(m * mag for m in steps if m * mag >= raw)
    n = math.ceil(top / step - 1e-9)
    return [round(k * step, 10) for k in range(n + 1)]


def _num(v: float, percent: bool) -> str:
    if percent:
        return f"{100 * v:.0f}%"
    return f"{v:g}" if v == int(v) else f"{v:.1f}"


def _svg(width: int, height: int, title: str, body: list) -> str:
    t = escape(title)
    return (f'<svg width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
            f'aria-label="{t}">\n<title>{t}</title>\n' + "\n".join(body) + "\n</svg>")


def _text(x: float, y: float, s: str, anchor: str = "middle", extra: str = "") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" {FONT}{extra}>{escape(str(s))}</text>'


def _error_bar_v(x: float, y_lo: float, y_hi: float, half: float = 5) -> list:
    return [f'<line x1="{x:.1f}" y1="{y_lo:.1f}" x2="{x:.1f}" y2="{y_hi:.1f}" stroke="#222"/>',
            f'<line x1="{x - half:.1f}" y1="{y_lo:.1f}" x2="{x + half:.1f}" y2="{y_lo:.1f}" stroke="#222"/>',
            f'<line x1="{x - half:.1f}" y1="{y_hi:.1f}" x2="{x + half:.1f}" y2="{y_hi:.1f}" stroke="#222"/>']


def _error_bar_h(y: float, x_lo: float, x_hi: float, half: float = 4) -> list:
    return [f'<line x1="{x_lo:.1f}" y1="{y:.1f}" x2="{x_hi:.1f}" y2="{y:.1f}" stroke="#222"/>',
            f'<line x1="{x_lo:.1f}" y1="{y - half:.1f}" x2="{x_lo:.1f}" y2="{y + half:.1f}" stroke="#222"/>',
            f'<line x1="{x_hi:.1f}" y1="{y - half:.1f}" x2="{x_hi:.1f}" y2="{y + half:.1f}" stroke="#222"/>']


def bar_chart(items: Sequence[tuple], title: str, percent: bool = True, reference: Optional[float] = None,
              reference_label: str = "", y_label: str = "", colours: Optional[Sequence[str]] = None) -> str:
    """Upright bars: items are (label, value, (lo, hi) or None); a dashed line at `reference`."""
    n = max(1, len(items))
    bar = max([46] + [7 * len(str(label)) for label, _, _ in items])
    gap = 24
    left, right, top, bottom = 56, 16, 34, 42
    width = max(320, left + right + n * (bar + gap) + gap)
    height = 280
    plot_h = height - top - bottom
    highest = max([v for _, v, _ in items] + [ci[1] for _, _, ci in items if ci] + [reference or 0])
    ticks = nice_ticks(1.0 if percent and highest > 0.8 else highest)
    ymax = ticks[-1] or 1

    def y(v: float) -> float:
        return top + plot_h * (1 - v / ymax)

    body = [_text(width / 2, 18, title, extra=' font-weight="bold"')]
    for t in ticks:
        body.append(f'<line x1="{left}" y1="{y(t):.1f}" x2="{width - right}" y2="{y(t):.1f}" stroke="#ddd"/>')
        body.append(_text(left - 6, y(t) + 4, _num(t, percent), "end"))
    if y_label:
        body.append(_text(14, top + plot_h / 2, y_label, extra=f' transform="rotate(-90 14 {top + plot_h / 2:.1f})"'))
    for i, (label, v, ci) in enumerate(items):
        x = left + gap + i * (bar + gap)
        colour = (colours or PALETTE)[i % len(colours or PALETTE)] if colours else PALETTE[0]
        body.append(f'<rect x="{x}" y="{y(v):.1f}" width="{bar}" height="{max(0.0, y(0) - y(v)):.1f}" '
                    f'fill="{colour}"><title>{escape(f"{label}: {_num(v, percent)}")}</title></rect>')
        if ci:
            body += _error_bar_v(x + bar / 2, y(ci[0]), y(ci[1]))
        body.append(_text(x + bar / 2, height - bottom + 16, label))
    if reference is not None:
        body.append(f'<line x1="{left}" y1="{y(reference):.1f}" x2="{width - right}" y2="{y(reference):.1f}" '
                    f'stroke="#c00" stroke-dasharray="5,4"/>')
        if reference_label:
            body.append(_text(width - right, y(reference) - 5, reference_label, "end", ' fill="#c00"'))
    body.append(f'<line x1="{left}" y1="{y(0):.1f}" x2="{width - right}" y2="{y(0):.1f}" stroke="#444"/>')
    return _svg(width, height, title, body)


def hbar_chart(labels: Sequence[str], series: Sequence[tuple], title: str, percent: bool = False,
               reference: Optional[float] = None, reference_label: str = "") -> str:
    """Lying bars, one row per label and one bar per series in each row (long names fit on the
    left): series are (name, values, intervals or None); a value None draws no bar."""
    rows, k = max(1, len(labels)), max(1, len(series))
    bar = 12 if k > 1 else 16
    row = k * bar + 8
    label_w = min(260, 12 + 7 * max([len(s) for s in labels] + [4]))
    left, right, top = label_w, 60, 34
    legend = 22 if k > 1 else 0
    width = max(560, left + 420 + right)
    height = top + legend + rows * row + 30
    plot_w = width - left - right
    values = [v for _, vs, _ in series for v in vs if v is not None]
    his = [ci[1] for _, _, cis in series if cis for ci in cis if ci]
    highest = max(values + his + [reference or 0, 0])
    ticks = nice_ticks(1.0 if percent and highest > 0.8 else highest)
    xmax = ticks[-1] or 1
    y0 = top + legend

    def x(v: float) -> float:
        return left + plot_w * v / xmax

    body = [_text(width / 2, 18, title, extra=' font-weight="bold"')]
    if k > 1:
        lx = left
        for j, (name, _, _) in enumerate(series):
            body.append(f'<rect x="{lx}" y="{top - 2}" width="12" height="12" fill="{PALETTE[j % len(PALETTE)]}"/>')
            body.append(_text(lx + 16, top + 8, name, "start"))
            lx += 30 + 7 * len(name)
        if reference is not None and reference_label:  # in the legend, where it cannot cover a bar
            body.append(f'<line x1="{lx}" y1="{top + 4}" x2="{lx + 16}" y2="{top + 4}" stroke="#c00" '
                        f'stroke-dasharray="5,4"/>')
            body.append(_text(lx + 20, top + 8, reference_label, "start", ' fill="#c00"'))
    for t in ticks:
        body.append(f'<line x1="{x(t):.1f}" y1="{y0}" x2="{x(t):.1f}" y2="{y0 + rows * row}" stroke="#ddd"/>')
        body.append(_text(x(t), y0 + rows * row + 16, _num(t, percent)))
    for i, label in enumerate(labels):
        ry = y0 + i * row + 4
        body.append(_text(left - 6, ry + k * bar / 2 + 4, label, "end"))
        for j, (name, vs, cis) in enumerate(series):
            v = vs[i]
            if v is None:
                continue
            by = ry + j * bar
            tip = f"{label}, {name}: {_num(v, percent) if percent else v}"
            ci = cis[i] if cis else None
            if ci:
                tip += f" ({_num(ci[0], percent)} to {_num(ci[1], percent)})"
            body.append(f'<rect x="{left}" y="{by:.1f}" width="{max(0.0, x(v) - left):.1f}" height="{bar - 2}" '
                        f'fill="{PALETTE[j % len(PALETTE)]}"><title>{escape(tip)}</title></rect>')
            if ci:
                body += _error_bar_h(by + (bar - 2) / 2, x(ci[0]), x(ci[1]))
    if reference is not None:
        body.append(f'<line x1="{x(reference):.1f}" y1="{y0}" x2="{x(reference):.1f}" y2="{y0 + rows * row}" '
                    f'stroke="#c00" stroke-dasharray="5,4"/>')
        if reference_label and k == 1:
            body.append(_text(x(reference) + 4, y0 - 4, reference_label, "start", ' fill="#c00"'))
    body.append(f'<line x1="{left}" y1="{y0}" x2="{left}" y2="{y0 + rows * row}" stroke="#444"/>')
    return _svg(width, height, title, body)


def histogram(bins: Sequence[Sequence[float]], title: str, x_label: str = "", y_label: str = "games",
              width: int = 640, height: int = 280) -> str:
    """Bins are [lo, hi, count] (lo included, hi excluded), side by side."""
    left, right, top, bottom = 56, 16, 34, 50
    plot_w, plot_h = width - left - right, height - top - bottom
    lo, hi = bins[0][0], bins[-1][1]
    ticks = nice_ticks(max(c for _, _, c in bins), whole=True)
    ymax = ticks[-1] or 1

    def x(v: float) -> float:
        return left + plot_w * (v - lo) / ((hi - lo) or 1)

    def y(v: float) -> float:
        return top + plot_h * (1 - v / ymax)

    body = [_text(width / 2, 18, title, extra=' font-weight="bold"')]
    for t in ticks:
        body.append(f'<line x1="{left}" y1="{y(t):.1f}" x2="{width - right}" y2="{y(t):.1f}" stroke="#ddd"/>')
        body.append(_text(left - 6, y(t) + 4, _num(t, False), "end"))
    for b_lo, b_hi, c in bins:
        body.append(f'<rect x="{x(b_lo):.1f}" y="{y(c):.1f}" width="{max(0.0, x(b_hi) - x(b_lo) - 1):.1f}" '
                    f'height="{y(0) - y(c):.1f}" fill="{PALETTE[0]}">'
                    f'<title>{escape(f"{b_lo} to {b_hi - 1}: {c}")}</title></rect>')
    step = max(1, math.ceil(len(bins) / max(2, (width - left - right) // 70)))  # labels ~70 px apart
    for b_lo, _, _ in list(bins)[::step] + [[hi, hi, 0]]:
        body.append(_text(x(b_lo), y(0) + 16, _num(b_lo, False)))
    body.append(f'<line x1="{left}" y1="{y(0):.1f}" x2="{width - right}" y2="{y(0):.1f}" stroke="#444"/>')
    if x_label:
        body.append(_text(left + plot_w / 2, height - 12, x_label))
    if y_label:
        body.append(_text(14, top + plot_h / 2, y_label, extra=f' transform="rotate(-90 14 {top + plot_h / 2:.1f})"'))
    return _svg(width, height, title, body)
