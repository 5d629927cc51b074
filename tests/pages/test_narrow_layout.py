"""The narrow-window CSS is injected by the app, and the Evidence heatmap never drops a benchmark name."""

from __future__ import annotations

import json

from tests.pages.conftest import open_page


def _walk(node):
    for child in getattr(node, "children", {}).values():
        yield child
        yield from _walk(child)


def test_the_app_carries_the_narrow_window_rules_once(demo_copy):
    at = open_page()  # app.py's sidebar() injects them before any page runs
    # a style-only st.html goes to Streamlit's event container, which AppTest's get() does not search
    styles = [h.proto.body for h in _walk(at._tree) if getattr(h, "type", "") == "html"
              and "@media (max-width: 900px)" in h.proto.body]
    assert len(styles) == 1
    css = styles[0]
    assert 'section[data-testid="stSidebar"][data-collapsed="false"]' in css and "position: fixed" in css
    assert '[data-testid="stHorizontalBlock"] { flex-direction: column; }' in css
    assert "overflow-wrap: anywhere" in css


def _x_axes(node):
    """Every x-axis definition in a Vega-Lite spec (layers included)."""
    if isinstance(node, dict):
        x = node.get("x")
        if isinstance(x, dict) and isinstance(x.get("axis"), dict):
            yield x["axis"]
        for value in node.values():
            yield from _x_axes(value)
    elif isinstance(node, list):
        for value in node:
            yield from _x_axes(value)


def test_heatmap_keeps_every_benchmark_label(demo_copy):
    at = open_page("pages/evidence.py")
    spec = json.loads(at.get("vega_lite_chart")[0].proto.spec)
    axes = [a for a in _x_axes(spec) if a.get("orient") == "top"]
    assert axes  # the heatmap's benchmark axis
    # five benchmarks: names angled and never dropped for overlap (a narrow window lost two of five)
    assert all(a["labelOverlap"] is False and a["labelAngle"] == -30 for a in axes)
