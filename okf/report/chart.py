"""Geometry of the evaluation page's chart: recall against reading cost, as plain numbers for an SVG template."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

WIDTH, HEIGHT = 560, 300
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 14, 46


@dataclass
class Point:
    """One system on the chart: okf at some budget, or a baseline."""

    label: str
    x: float
    y: float
    kind: str  # "okf" or "baseline"
    number: int = 0
    px: float = 0.0
    py: float = 0.0


@dataclass
class Chart:
    """An x/y chart with axes, ticks and numbered points; recall (0..1) on y."""

    title: str
    x_label: str
    points: list[Point]
    x_ticks: list[tuple[float, str]] = field(default_factory=list)
    y_ticks: list[tuple[float, str]] = field(default_factory=list)
    line: str = ""
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    top: int = TOP
    plot_width: int = WIDTH - LEFT - RIGHT
    plot_height: int = HEIGHT - TOP - BOTTOM


def nice_step(span: float, ticks: int = 5) -> float:
    """A 1/2/5 x 10^k step giving about ``ticks`` intervals over ``span``."""
    if span <= 0:
        return 1.0
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    return float(next(m * power for m in (1, 2, 5, 10) if m * power >= raw))


def _tick_label(value: float) -> str:
    if value >= 10_000:
        return f"{value / 1000:g}k"
    return f"{value:,.0f}" if value >= 10 or value == int(value) else f"{value:g}"


def make_chart(title: str, x_label: str, points: list[Point]) -> Chart:
    """Place ``points`` (x >= 0, y in 0..1) on a chart from 0 to a round maximum; okf points joined by a line."""
    chart = Chart(title=title, x_label=x_label, points=points)
    top = max((p.x for p in points), default=1.0) or 1.0
    step = nice_step(top)
    x_max = step * math.ceil(top / step)
    chart.x_ticks = [
        (chart.left + chart.plot_width * (k * step) / x_max, _tick_label(k * step))
        for k in range(round(x_max / step) + 1)
    ]
    chart.y_ticks = [(chart.top + chart.plot_height * (1 - k / 5), f"{k * 20}%") for k in range(6)]
    for number, point in enumerate(points, start=1):
        point.number = number
        point.px = round(chart.left + chart.plot_width * point.x / x_max, 1)
        point.py = round(chart.top + chart.plot_height * (1 - max(0.0, min(1.0, point.y))), 1)
    okf = sorted((p for p in points if p.kind == "okf"), key=lambda p: p.x)
    if len(okf) > 1:
        chart.line = " ".join(f"{p.px},{p.py}" for p in okf)
    return chart
