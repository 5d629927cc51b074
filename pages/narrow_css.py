"""The style sheet for a narrow window, in a module of its own (pages/ui.py stays under the house's
500 lines)."""

NARROW_CSS = """<style>
@media (max-width: 900px) {
  /* Streamlit collapses its sidebar only below 768 px and would take 300 px of an 800 px window here.
     It becomes a drawer: a strip at the left edge that opens on hover or keyboard focus. */
  section[data-testid="stSidebar"][data-collapsed="false"] {
    position: fixed !important; top: 0; left: 0; height: 100vh !important; z-index: 999990;
    width: 260px !important; min-width: 260px !important; max-width: 260px !important;
    transform: translateX(calc(-100% + 1rem)) !important; transition: transform 0.15s ease-out;
    box-shadow: 2px 0 6px rgba(0, 0, 0, 0.15);
  }
  section[data-testid="stSidebar"][data-collapsed="false"]:hover,
  section[data-testid="stSidebar"][data-collapsed="false"]:focus-within { transform: none !important; }
  section[data-testid="stSidebar"][data-collapsed="false"]::after {
    content: "›"; position: absolute; right: 0.15rem; top: 50%; font-size: 1.2rem; color: #888;
  }
  [data-testid="stMainBlockContainer"] { padding: 3rem 1rem 4rem 2rem; }
  /* Columns stack, as Streamlit itself does on phones. */
  [data-testid="stHorizontalBlock"] { flex-direction: column; }
  [data-testid="stHorizontalBlock"] > [data-testid="stColumn"] {
    width: 100% !important; min-width: 100% !important; flex: 1 1 auto !important;
  }
  /* ... except a row of figures (st.metric), which wraps instead of one figure per line. */
  [data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] [data-testid="stMetric"]) {
    flex-direction: row; flex-wrap: wrap;
  }
  [data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] [data-testid="stMetric"])
    > [data-testid="stColumn"] {
    min-width: 8rem !important; width: auto !important; flex: 1 1 8rem !important;
  }
  /* Static tables wrap their cells instead of scrolling sideways. */
  [data-testid="stTable"] table { width: 100%; }
  [data-testid="stTable"] th, [data-testid="stTable"] td { padding: 0.25rem 0.4rem; white-space: normal; }
  [data-testid="stTable"] td * { font-size: 0.85rem !important; overflow-wrap: anywhere !important; }
  [data-testid="stTable"] th * { font-size: 0.8rem !important; }  /* headers break between words only */
  /* A chart of fixed width scrolls inside its own box rather than being cut at the window's edge. */
  [data-testid="stVegaLiteChart"] { overflow-x: auto; max-width: 100%; }
}
</style>"""
"""Layout for a narrow window (about 800 px); above 900 px nothing changes."""
