"""A self-contained HTML page that shows the entity graph: one file with its CSS, its
JavaScript (`graph_view.js`, inlined) and the data, that opens from file:// with the
network off.

The page draws the graph as SVG with its own seeded force layout (same payload, same
picture), colours nodes by community at a chosen level, searches by name, shows an
entity's description, sources and community report in a side panel, and charts the
community hierarchy. Names and descriptions come from private documents, so:

- the payload travels as JSON in `<script type="application/json">` with every `<`, `>`
  and `&` written as a JSON escape, so no description can close the tag;
- the page script puts user text into the page only as text nodes, never as markup;
- a Content-Security-Policy allows only this page's own script and style (by hash) and
  forbids every fetch, so even a slip elsewhere could neither run nor phone home.

Deliberately not here: building the payload from an index (the caller knows the tables),
laying the graph out in Python, or any asset from the network.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
from importlib import resources
from pathlib import Path
from typing import Any

SCRIPT_FILE = "graph_view.js"

STYLE = """
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif;
       color: #222; background: #fafafa; display: grid; height: 100vh;
       grid-template: "head head" auto "graph panel" 1fr "chart panel" auto / 1fr 380px; }
header { grid-area: head; display: flex; gap: 14px; align-items: center; padding: 8px 14px;
         border-bottom: 1px solid #ddd; background: #fff; flex-wrap: wrap; }
header h1 { font-size: 16px; margin: 0 12px 0 0; }
header .muted, .hint, .meta { color: #666; }
input, select { font: inherit; padding: 3px 6px; }
#graph { grid-area: graph; width: 100%; height: 100%; min-height: 300px; background: #fff;
         cursor: grab; user-select: none; }
#graph .edges line { stroke: #9aa0a6; stroke-opacity: 0.55; }
#graph .node { stroke: #fff; stroke-width: 1.5; cursor: pointer; }
#graph .node.match { stroke: #111; stroke-width: 3; }
#graph .node.selected { stroke: #d62728; stroke-width: 4; }
#graph .node.dim { opacity: 0.25; }
#graph .label { font-size: 11px; fill: #333; pointer-events: none;
                paint-order: stroke; stroke: #fff; stroke-width: 3px; }
#graph .label.hidden { display: none; }
#graph .label.hidden.shown, #graph .label.hidden.matched { display: inline; }
#panel { grid-area: panel; overflow: auto; padding: 12px 16px; border-left: 1px solid #ddd;
         background: #fff; overflow-wrap: anywhere; }
#panel h2 { font-size: 18px; margin: 0 0 4px; }
#panel h3 { font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: #555;
            margin: 16px 0 6px; }
#panel ul { padding-left: 18px; margin: 4px 0; }
#panel li { margin-bottom: 6px; }
#panel .type { background: #eef; border-radius: 3px; padding: 0 5px; font-size: 12px; }
#panel .quote { border-left: 3px solid #ddd; padding-left: 8px; color: #444; margin-top: 2px; }
#chart { grid-area: chart; padding: 6px 14px 10px; border-top: 1px solid #ddd; background: #fff; }
#chart h3 { font-size: 13px; margin: 0 0 4px; color: #555; }
#hierarchy { width: 100%; max-width: 520px; font-size: 12px; }
#hierarchy .level-row { cursor: pointer; }
"""

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{style}</style>
</head>
<body>
<header>
  <h1>{title}</h1>
  <label>Communities at <select id="level"></select></label>
  <label>Search <input id="search" type="search" placeholder="entity name" autocomplete="off"></label>
  <span id="found" class="muted"></span>
  <span id="count" class="muted"></span>
</header>
<svg id="graph" role="img" aria-label="entity graph" preserveAspectRatio="xMidYMid meet"></svg>
<aside id="panel"></aside>
<section id="chart"><h3>Community hierarchy: communities and their sizes per level</h3>
<svg id="hierarchy" role="img" aria-label="community hierarchy"></svg></section>
<script id="graph-data" type="application/json">{data}</script>
<script>{script}</script>
</body>
</html>
"""


def render_graph_html(payload: dict) -> str:
    """One self-contained HTML page (inline CSS and JS, no external URL of any kind: no CDN,
    no fonts, no images fetched)."""
    script = page_script()
    if "</script" in script.lower() or "<!--" in script:
        raise ValueError(f"{SCRIPT_FILE} must not contain '</script' or '<!--'")
    csp = "; ".join(
        [
            "default-src 'none'",
            f"script-src '{_sha256(script)}'",
            f"style-src '{_sha256(STYLE)}'",
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )
    title = str(payload.get("title") or "graphrag-local entity graph")
    return PAGE.format(
        csp=csp,
        title=html.escape(title),
        style=STYLE,
        data=json_for_script(payload),
        script=script,
    )


def write_graph_html(payload: dict, out: Path, private: bool | None = None) -> Path:
    """Write the page to `out` (folders made). `private`: readable by you only (0600, new
    folders 0700); None: the project's `private` setting (./graphrag-local.toml)."""
    from .private import private_files, project_private

    out = Path(out)
    with private_files(project_private() if private is None else private):
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(render_graph_html(payload), encoding="utf-8")
    return out


def page_script() -> str:
    """The page's JavaScript, from the file packaged next to this module."""
    return resources.files(__package__).joinpath(SCRIPT_FILE).read_text(encoding="utf-8")


def json_for_script(payload: Any) -> str:
    """JSON safe to place inside a <script> element: `<`, `>` and `&` become JSON escapes
    (so no `</script>` or `<!--` can appear) and non-finite numbers become null (JSON.parse
    rejects NaN)."""
    text = json.dumps(_finite(payload), ensure_ascii=False, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _sha256(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")
