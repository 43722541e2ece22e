"""The offline HTML graph view: the page as text (no outside reference, hostile text only
escaped), then the page in a real headless Chromium (draws, recolours, searches, shows a
node, fetches nothing, logs no error)."""

import json
import re
import shutil
from pathlib import Path

import pytest

from graphrag_local.graph_view import json_for_script, render_graph_html, write_graph_html

HOSTILE = "<script>alert(1)</script>"
HOSTILE_IMG = "<img src=x onerror=alert(1)>"
CLOSER = "ends here </script><script>alert(2)</script> and <!-- more"


def synthetic_payload() -> dict:
    """30 entities in 3 communities at level 0, each split in two at level 1; every
    community is a ring around a hub, and a few bridges join the hubs."""
    nodes, edges, communities = [], [], []
    for g in range(3):
        top = f"c0{'abc'[g]}"
        report = (
            None
            if g == 2
            else {
                "ref": f"R{g + 1}",
                "summary": f"Summary of group {g}.",
                "rating": 6.5 - g,
                "findings": [{"text": f"Finding about group {g}.", "where": f"doc{g}.md, chunk 1"}],
            }
        )
        communities.append(
            {
                "id": top,
                "level": 0,
                "parent": "",
                "size": 10,
                "title": f"Group {g}",
                "report": report,
            }
        )
        for half in range(2):
            communities.append(
                {
                    "id": f"c1{'abc'[g]}{half}",
                    "level": 1,
                    "parent": top,
                    "size": 5,
                    "title": f"Group {g}.{half}",
                    "report": None,
                }
            )
        for k in range(10):
            i = g * 10 + k
            name = f"Entity {i}"
            if i == 10:
                name = HOSTILE
            elif i == 21:
                name = HOSTILE_IMG
            nodes.append(
                {
                    "id": f"e{i}",
                    "name": name,
                    "type": "PERSON" if k % 2 else "ORGANIZATION",
                    "degree": 0,
                    "description": CLOSER if i == 10 else f"Description of entity {i}.",
                    "sources": [
                        {
                            "ref": f"S{i}",
                            "where": f"doc{g}.md, chunk {k}",
                            "text": f"Entity {i} appears in document {g}.",
                        }
                    ],
                    "communities": {"0": top, "1": f"c1{'abc'[g]}{k // 5}"},
                }
            )
            if k:
                edges.append(
                    {
                        "source": f"e{g * 10}",
                        "target": f"e{i}",
                        "weight": 1.0 + k,
                        "description": f"hub of group {g} knows entity {i}",
                    }
                )
    edges += [
        {"source": "e0", "target": "e10", "weight": 0.5, "description": "bridge"},
        {"source": "e10", "target": "e20", "weight": 0.5, "description": "bridge"},
    ]
    degree = {n["id"]: 0 for n in nodes}
    for e in edges:
        degree[e["source"]] += 1
        degree[e["target"]] += 1
    for n in nodes:
        n["degree"] = degree[n["id"]]
    nodes[29]["communities"].pop("1")  # a level where an entity has no community
    return {
        "title": f"graphrag-local: {HOSTILE}",
        "levels": [0, 1],
        "nodes": nodes,
        "edges": edges,
        "communities": communities,
    }


# ---- the page as text


def test_page_has_no_outside_reference():
    page = render_graph_html(synthetic_payload())
    lowered = page.lower()
    for needle in ("http://", "https://", "//cdn", "<link", "@import", "url("):
        assert needle not in lowered, needle
    assert not re.search(r"<[a-z]+[^>]*\s(src|href)\s*=", lowered)
    assert "default-src 'none'" in page


def test_hostile_text_appears_only_escaped():
    payload = synthetic_payload()
    page = render_graph_html(payload)
    for raw in (HOSTILE, HOSTILE_IMG, "<script>alert(2)", "<!-- more", "<img"):
        assert raw not in page, raw
    assert page.lower().count("</script") == 2  # the data block's and the code block's own
    assert page.lower().count("<script") == 2
    assert "<title>graphrag-local: &lt;script&gt;alert(1)&lt;/script&gt;</title>" in page
    data = re.search(r'<script id="graph-data" type="application/json">(.*?)</script>', page, re.S)
    assert json.loads(data.group(1)) == payload  # the escapes are plain JSON: nothing lost


def test_csp_hashes_cover_exactly_the_inline_code():
    import base64
    import hashlib

    page = render_graph_html(synthetic_payload())
    code = re.search(r"<script>(.*?)</script>", page, re.S).group(1)
    style = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    for text in (code, style):
        digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in page


def test_json_for_script_nulls_non_finite_numbers():
    assert json.loads(json_for_script({"rating": float("nan"), "x": [float("inf"), 1.5]})) == {
        "rating": None,
        "x": [None, 1.5],
    }


def test_write_graph_html_makes_folders(tmp_path):
    out = write_graph_html(synthetic_payload(), tmp_path / "a" / "graph.html")
    assert out.is_file() and out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_render_is_deterministic_and_empty_payload_renders():
    assert render_graph_html(synthetic_payload()) == render_graph_html(synthetic_payload())
    assert "<svg" in render_graph_html({"nodes": [], "edges": [], "communities": []})


# ---- the page in a real browser

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        if found := shutil.which(name):
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").is_file() else None


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip(
        "playwright.sync_api",
        reason="Python Playwright not installed (pip install playwright; no `playwright install`)",
    )
    exe = chromium_path()
    if exe is None:
        pytest.skip("no Chromium binary (apt-get install -y chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


class Opened:
    """A page loaded from file:// with the network off, and what it did meanwhile."""

    def __init__(self, browser, path: Path):
        self.url = path.resolve().as_uri()
        self.requests, self.errors, self.dialogs = [], [], []
        self.context = browser.new_context(offline=True, viewport={"width": 1400, "height": 900})
        self.context.on("request", lambda r: self.requests.append(r.url))
        self.page = self.context.new_page()
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.goto(self.url)
        self.page.wait_for_selector("body[data-ready='1']", timeout=15_000)

    def fills(self) -> dict[str, str]:
        return dict(
            self.page.eval_on_selector_all(
                "circle.node", "cs => cs.map(c => [c.dataset.id, c.getAttribute('fill')])"
            )
        )

    def panel(self) -> str:
        return self.page.inner_text("#panel")

    def assert_clean(self):
        assert self.errors == [], self.errors
        assert self.dialogs == [], self.dialogs
        outside = [
            u for u in self.requests if u != self.url and not u.startswith(("data:", "about:"))
        ]
        assert outside == [], outside
        assert self.url in self.requests
        self.context.close()


@pytest.fixture
def opened(browser, tmp_path):
    payload = synthetic_payload()
    path = write_graph_html(payload, tmp_path / "graph.html")
    page = Opened(browser, path)
    yield page, payload


def same_community_same_colour(fills: dict, payload: dict, level: str) -> int:
    """Asserts one colour per community at `level`, distinct across them; returns how many."""
    colour_of = {}
    for n in payload["nodes"]:
        cid = n["communities"].get(level)
        if cid:
            assert colour_of.setdefault(cid, fills[n["id"]]) == fills[n["id"]], n["id"]
    assert len(set(colour_of.values())) == len(colour_of)
    return len(colour_of)


@pytest.mark.e2e
def test_browser_draws_the_graph_offline(opened, tmp_path):
    o, payload = opened
    assert o.page.locator("#graph circle.node").count() == len(payload["nodes"])
    assert o.page.locator("#graph .edges line").count() == len(payload["edges"])
    rows = o.page.locator("#hierarchy .level-row")
    assert rows.count() == 2
    assert rows.nth(0).locator("rect").count() == 3 and rows.nth(1).locator("rect").count() == 6
    assert "level 1: 6 communities" in o.page.text_content("#hierarchy")
    # labels and the count line are text, never markup
    assert HOSTILE in o.page.eval_on_selector_all(
        "#graph .label", "ts => ts.map(t => t.textContent)"
    )
    assert o.page.locator("script").count() == 2 and o.page.locator("img").count() == 0
    assert o.page.title() == f"graphrag-local: {HOSTILE}"

    shot = tmp_path / "graph.png"
    o.page.screenshot(path=str(shot))
    from PIL import Image

    image = Image.open(shot).convert("RGB")
    assert image.size == (1400, 900)
    colours = image.getcolors(maxcolors=1 << 20)
    assert len(colours) > 50  # nodes, edges, labels, chart: far more than a blank page
    non_background = sum(c for c, rgb in colours if rgb not in ((255, 255, 255), (250, 250, 250)))
    assert non_background > 0.02 * image.size[0] * image.size[1]
    o.assert_clean()


@pytest.mark.e2e
def test_browser_level_switch_recolours(opened):
    o, payload = opened
    at0 = o.fills()
    assert same_community_same_colour(at0, payload, "0") == 3
    o.page.select_option("#level", "1")
    at1 = o.fills()
    assert same_community_same_colour(at1, payload, "1") == 6
    assert at0 != at1
    assert at1["e29"] != at0["e29"]  # no community at level 1: the "none" colour
    o.page.locator("#hierarchy .level-row").nth(0).click()  # the chart switches level too
    assert o.page.input_value("#level") == "0" and o.fills() == at0
    o.assert_clean()


@pytest.mark.e2e
def test_browser_click_fills_the_panel(opened):
    o, payload = opened
    assert "Click an entity" in o.panel()
    o.page.click("circle.node[data-id='e0']")
    text = o.panel()
    for needle in (
        "Entity 0",
        "ORGANIZATION",
        "Description of entity 0.",
        "S0",
        "doc0.md, chunk 0",
        "Entity 0 appears in document 0.",
        "Group 0",
        "R1",
        "Summary of group 0.",
        "Finding about group 0.",
        "(doc0.md, chunk 1)",
    ):
        assert needle in text, needle
    o.page.select_option("#level", "1")  # the panel follows the level
    assert "Group 0.0" in o.panel() and "no report for this community" in o.panel()

    o.page.click("circle.node[data-id='e10']")  # hostile name and description: shown as text
    assert o.page.inner_text("#entity-name") == HOSTILE
    assert o.page.inner_text("#entity-description") == CLOSER
    o.page.click("circle.node[data-id='e20']")
    o.page.locator("#panel a", has_text=HOSTILE_IMG).click()  # a relationship link
    assert o.page.inner_text("#entity-name") == HOSTILE_IMG
    assert o.page.locator("#panel img, #panel script").count() == 0
    o.assert_clean()


@pytest.mark.e2e
def test_browser_search_highlights_and_selects(opened):
    o, _ = opened
    o.page.fill("#search", "entity 1")
    matches = o.page.eval_on_selector_all("circle.node.match", "cs => cs.map(c => c.dataset.id)")
    assert sorted(matches) == sorted(["e1"] + [f"e{i}" for i in range(11, 20)])
    assert o.page.inner_text("#found") == "10 matches"
    assert o.page.inner_text("#entity-name") == "Entity 1"  # exact, then prefix, then degree
    assert o.page.locator("circle.node.dim").count() == 20
    o.page.fill("#search", "")
    assert o.page.locator("circle.node.match, circle.node.dim").count() == 0
    o.assert_clean()


@pytest.mark.e2e
def test_browser_same_payload_same_picture(browser, tmp_path):
    payload = synthetic_payload()
    first = write_graph_html(payload, tmp_path / "a.html")
    second = write_graph_html(payload, tmp_path / "b.html")
    positions = []
    for path in (first, second):
        o = Opened(browser, path)
        positions.append(
            o.page.eval_on_selector_all(
                "circle.node",
                "cs => cs.map(c => [c.dataset.id, c.getAttribute('cx'), c.getAttribute('cy')])",
            )
        )
        o.assert_clean()
    assert positions[0] == positions[1]
    xs = {float(x) for _, x, _ in positions[0]}
    assert len(xs) == len(payload["nodes"])  # laid out, not stacked on one point
