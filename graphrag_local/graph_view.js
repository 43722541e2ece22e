// The entity graph page of graphrag_local.graph_view, inlined into the HTML at render time.
// Reads the payload from the JSON block with id "graph-data", lays the graph out
// with a seeded Fruchterman-Reingold run of a fixed number of steps (same payload, same
// picture), and draws it as SVG. User text only ever reaches the page as text nodes
// (textContent, createTextNode): never innerHTML.
"use strict";
(function () {
  const SVG = document.getElementById("graph").namespaceURI; // no URL literal in the page
  const PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
    "#b07aa1", "#ff9da7", "#9c755f", "#8cd17d", "#499894", "#d37295", "#a0cbe8", "#f1ce63"];
  const NONE = "#bab0ac";
  const W = 1000, H = 700;

  const data = JSON.parse(document.getElementById("graph-data").textContent);
  const nodes = data.nodes || [], communities = data.communities || [];
  const levels = (data.levels && data.levels.length ? data.levels
    : [...new Set(communities.map((c) => c.level))].sort((a, b) => a - b)).map(String);
  for (const n of nodes) n.name = String(n.name || n.id); // never an empty or missing label
  // every name an entity goes by, for search: its own and its aliases
  const known = nodes.map((n) => [n.name, ...(n.aliases || []).map((a) => String(a[0]))].map((x) => x.toLowerCase()));
  const byId = new Map(nodes.map((n, i) => [n.id, i]));
  const edges = (data.edges || []).filter((e) => byId.has(e.source) && byId.has(e.target) && e.source !== e.target);
  const community = new Map(communities.map((c) => [c.id, c]));
  const maxW = maxOf(edges.map((e) => e.weight || 1), 1e-9);
  const state = { level: levels[0] || "0", selected: -1, matches: new Set() };

  // ---- small DOM helpers: children that are strings become text nodes
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    for (const c of children) if (c !== null && c !== undefined) e.append(typeof c === "string" ? document.createTextNode(c) : c);
    return e;
  }
  function svg(tag, attrs) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    return e;
  }
  function tooltip(e, text) { const t = svg("title"); t.textContent = text; e.append(t); return e; }
  function maxOf(values, floor) { return values.reduce((m, v) => (v > m ? v : m), floor); } // no spread: big graphs
  function fmt(x) { return Number.isFinite(x) ? String(Math.round(x * 100) / 100) : ""; }

  // ---- colours: per level, communities ordered by (size desc, id) take palette slots in turn
  const colourOf = new Map();
  for (const lv of levels) {
    atLevel(lv).forEach((c, i) => colourOf.set(c.id, PALETTE[i % PALETTE.length]));
  }
  function atLevel(lv) {
    return communities.filter((c) => String(c.level) === lv)
      .sort((a, b) => (b.size || 0) - (a.size || 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
  function communityOf(n, lv) { return (n.communities || {})[lv] || ""; }
  function nodeColour(n) { return colourOf.get(communityOf(n, state.level)) || NONE; }

  // ---- layout: seeded Fruchterman-Reingold, fixed steps
  function seededRandom(text) {
    let h = 2166136261; // FNV-1a of the node ids, then mulberry32
    for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 16777619); }
    return function () {
      h = (h + 0x6d2b79f5) | 0;
      let t = Math.imul(h ^ (h >>> 15), 1 | h);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  function layout() {
    const n = nodes.length, x = new Float64Array(n), y = new Float64Array(n);
    const rand = seededRandom(nodes.map((d) => d.id).join("\u0000"));
    for (let i = 0; i < n; i++) { x[i] = W * rand(); y[i] = H * rand(); }
    if (n < 2) { if (n) { x[0] = W / 2; y[0] = H / 2; } return { x, y }; }
    const k = Math.sqrt((W * H) / n);
    const src = edges.map((e) => byId.get(e.source)), dst = edges.map((e) => byId.get(e.target));
    const w = edges.map((e) => 0.5 + (e.weight || 1) / maxW);
    const steps = Math.max(60, Math.min(300, Math.floor(4e7 / (n * n)))); // O(n^2) per step
    const dx = new Float64Array(n), dy = new Float64Array(n);
    for (let s = 0; s < steps; s++) {
      const temp = (W / 10) * (1 - s / steps);
      dx.fill(0); dy.fill(0);
      for (let i = 0; i < n; i++) {
        for (let j = i + 1; j < n; j++) {
          let ddx = x[i] - x[j], ddy = y[i] - y[j], d2 = ddx * ddx + ddy * ddy;
          if (d2 < 1e-4) { ddx = 0.01 * (i - j); ddy = 0.01; d2 = ddx * ddx + ddy * ddy; }
          const f = (k * k) / d2; // repulsion k^2/d, along the unit vector
          dx[i] += ddx * f; dy[i] += ddy * f; dx[j] -= ddx * f; dy[j] -= ddy * f;
        }
      }
      for (let e = 0; e < src.length; e++) {
        const a = src[e], b = dst[e], ddx = x[a] - x[b], ddy = y[a] - y[b];
        const d = Math.sqrt(ddx * ddx + ddy * ddy) || 0.01, f = (d * w[e]) / k; // attraction d^2/k
        dx[a] -= ddx * f; dy[a] -= ddy * f; dx[b] += ddx * f; dy[b] += ddy * f;
      }
      for (let i = 0; i < n; i++) {
        dx[i] -= (x[i] - W / 2) * 0.02 * (k / 50); dy[i] -= (y[i] - H / 2) * 0.02 * (k / 50); // gravity
        const d = Math.sqrt(dx[i] * dx[i] + dy[i] * dy[i]) || 1, m = Math.min(d, temp);
        x[i] += (dx[i] / d) * m; y[i] += (dy[i] / d) * m;
      }
    }
    return { x, y };
  }

  // ---- drawing
  const maxDeg = maxOf(nodes.map((n) => n.degree || 0), 1);
  const shrink = Math.max(0.35, Math.min(1, Math.sqrt(100 / Math.max(nodes.length, 1)))); // crowded: smaller
  const radius = nodes.map((n) => shrink * (4 + 14 * Math.sqrt((n.degree || 0) / maxDeg)));
  const pos = layout();
  const graph = document.getElementById("graph");
  const view = { x: 0, y: 0, w: W, h: H };
  const circles = [], labels = [];

  function fit() { // turn the widest spread horizontal, then scale into the W x H box
    const n = nodes.length;
    let mx = 0, my = 0, sxx = 0, syy = 0, sxy = 0;
    for (let i = 0; i < n; i++) { mx += pos.x[i] / n; my += pos.y[i] / n; }
    for (let i = 0; i < n; i++) {
      const a = pos.x[i] - mx, b = pos.y[i] - my;
      sxx += a * a; syy += b * b; sxy += a * b;
    }
    const t = -0.5 * Math.atan2(2 * sxy, sxx - syy), c = Math.cos(t), s = Math.sin(t);
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (let i = 0; i < n; i++) {
      const a = pos.x[i] - mx, b = pos.y[i] - my;
      pos.x[i] = a * c - b * s; pos.y[i] = a * s + b * c;
      x0 = Math.min(x0, pos.x[i]); x1 = Math.max(x1, pos.x[i]); y0 = Math.min(y0, pos.y[i]); y1 = Math.max(y1, pos.y[i]);
    }
    const left = 30, right = 120, pad = 30; // room for the labels, which run to the right
    const scale = Math.min((W - left - right) / Math.max(x1 - x0, 1e-9), (H - 2 * pad) / Math.max(y1 - y0, 1e-9));
    for (let i = 0; i < n; i++) {
      pos.x[i] = (left + W - right) / 2 + (pos.x[i] - (x0 + x1) / 2) * scale;
      pos.y[i] = H / 2 + (pos.y[i] - (y0 + y1) / 2) * scale;
    }
  }

  function draw() {
    setView();
    if (!nodes.length) { document.getElementById("count").textContent = "no entities"; return; }
    fit();
    const gEdges = svg("g", { class: "edges" }), gNodes = svg("g", { class: "nodes" }), gLabels = svg("g", { class: "labels" });
    for (const e of edges) {
      const a = byId.get(e.source), b = byId.get(e.target);
      gEdges.append(tooltip(svg("line", {
        x1: pos.x[a], y1: pos.y[a], x2: pos.x[b], y2: pos.y[b],
        "stroke-width": shrink * (0.5 + 3.5 * ((e.weight || 1) / maxW)),
      }), `${nodes[a].name} \u2014 ${nodes[b].name}: ${e.description || ""}`));
    }
    const order = nodes.map((_, i) => i).sort((a, b) => (nodes[a].degree || 0) - (nodes[b].degree || 0) || a - b);
    const labelled = new Set(order.slice(-40)); // the 40 best-connected carry a label
    for (const i of order) { // big nodes last, so on top
      const c = tooltip(svg("circle", { class: "node", cx: pos.x[i], cy: pos.y[i], r: radius[i], "data-id": nodes[i].id }),
        `${nodes[i].name} (${nodes[i].type || ""})`);
      c.addEventListener("click", (ev) => { ev.stopPropagation(); select(i); });
      circles[i] = c; gNodes.append(c);
      const t = svg("text", { x: pos.x[i] + radius[i] + 2, y: pos.y[i] + 4, class: "label" });
      t.textContent = nodes[i].name; labels[i] = t;
      if (!labelled.has(i)) t.classList.add("hidden");
      gLabels.append(t);
    }
    graph.append(gEdges, gNodes, gLabels);
    document.getElementById("count").textContent = `${nodes.length} entities, ${edges.length} relationships`;
  }
  function recolour() { nodes.forEach((n, i) => circles[i] && circles[i].setAttribute("fill", nodeColour(n))); }
  function setView() { graph.setAttribute("viewBox", `${view.x} ${view.y} ${view.w} ${view.h}`); }

  // ---- zoom (wheel) and pan (drag on the background)
  function toGraph(ev) {
    const r = graph.getBoundingClientRect(), s = Math.max(view.w / r.width, view.h / r.height);
    return { x: view.x + (ev.clientX - r.left - (r.width - view.w / s) / 2) * s, y: view.y + (ev.clientY - r.top - (r.height - view.h / s) / 2) * s, s };
  }
  graph.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const p = toGraph(ev), f = ev.deltaY > 0 ? 1.15 : 1 / 1.15;
    Object.assign(view, { x: p.x - (p.x - view.x) * f, y: p.y - (p.y - view.y) * f, w: view.w * f, h: view.h * f });
    setView();
  }, { passive: false });
  let drag = null;
  graph.addEventListener("pointerdown", (ev) => {
    if (ev.target.classList.contains("node")) return;
    drag = { cx: ev.clientX, cy: ev.clientY, vx: view.x, vy: view.y, s: toGraph(ev).s };
  });
  window.addEventListener("pointermove", (ev) => {
    if (!drag) return;
    view.x = drag.vx - (ev.clientX - drag.cx) * drag.s; view.y = drag.vy - (ev.clientY - drag.cy) * drag.s;
    setView();
  });
  window.addEventListener("pointerup", () => { drag = null; });

  // ---- side panel
  const panel = document.getElementById("panel");
  function section(title, ...body) { return el("section", {}, el("h3", {}, title), ...body); }
  function select(i) {
    state.selected = i;
    circles.forEach((c, j) => c.classList.toggle("selected", j === i));
    labels.forEach((t, j) => t.classList.toggle("shown", j === i));
    renderPanel();
  }
  function renderPanel() {
    const i = state.selected;
    if (i < 0) { panel.replaceChildren(el("p", { class: "hint" }, "Click an entity to see its description, sources and community report.")); return; }
    const n = nodes[i];
    const parts = [
      el("h2", { id: "entity-name" }, n.name),
      el("p", { class: "meta" }, el("span", { class: "type" }, n.type || ""), ` degree ${n.degree || 0}`),
      el("p", { id: "entity-description" }, n.description || ""),
    ];
    if ((n.aliases || []).length) parts.splice(2, 0, el("p", { class: "meta", id: "entity-aliases" }, "also: " + n.aliases.map((a) => `${a[0]} (${a[1]})`).join(", ")));
    const sources = (n.sources || []).map((s) => el("li", {}, el("b", {}, s.ref || ""), " ", el("i", {}, s.where || ""), el("div", { class: "quote" }, s.text || "")));
    if (sources.length) parts.push(section("Sources", el("ul", { class: "sources" }, ...sources)));
    const neighbours = edges.filter((e) => e.source === n.id || e.target === n.id).map((e) => {
      const j = byId.get(e.source === n.id ? e.target : e.source);
      const a = el("a", { href: "#" }, nodes[j].name);
      a.addEventListener("click", (ev) => { ev.preventDefault(); select(j); });
      return el("li", {}, a, e.description ? `: ${e.description}` : "");
    });
    if (neighbours.length) parts.push(section("Relationships", el("ul", {}, ...neighbours)));
    const c = community.get(communityOf(n, state.level));
    if (!c) parts.push(section(`Community at level ${state.level}`, el("p", { class: "hint" }, "none at this level")));
    else {
      const r = c.report;
      const swatch = el("span", { class: "swatch" }, "\u25cf");
      swatch.style.color = colourOf.get(c.id) || NONE;
      const body = [el("p", { class: "meta" }, swatch, ` ${c.title || c.id} \u00b7 ${c.size || 0} entities`)];
      if (!r) body.push(el("p", { class: "hint" }, "no report for this community"));
      else {
        body.push(el("p", { class: "meta" }, `${r.ref || ""}${Number.isFinite(r.rating) ? ` \u00b7 rating ${fmt(r.rating)}` : ""}`));
        body.push(el("p", { id: "report-summary" }, r.summary || ""));
        const findings = (r.findings || []).map((f) => el("li", {}, f.text || "", f.where ? el("i", {}, ` (${f.where})`) : null));
        if (findings.length) body.push(el("ul", { class: "findings" }, ...findings));
      }
      parts.push(section(`Community at level ${state.level}`, ...body));
    }
    panel.replaceChildren(...parts);
  }

  // ---- level switch, search, hierarchy chart
  const levelSelect = document.getElementById("level");
  for (const lv of levels) levelSelect.append(el("option", { value: lv }, `level ${lv}`));
  function setLevel(lv) { state.level = lv; levelSelect.value = lv; recolour(); renderPanel(); }
  levelSelect.addEventListener("change", () => setLevel(levelSelect.value));

  const search = document.getElementById("search"), found = document.getElementById("found");
  function runSearch() {
    const q = search.value.trim().toLowerCase();
    const hits = q ? nodes.map((n, i) => i).filter((i) => known[i].some((s) => s.includes(q))) : [];
    const rank = (i) => Math.min(...known[i].map((s) => (s === q ? 0 : s.startsWith(q) ? 1 : 2)));
    hits.sort((a, b) => rank(a) - rank(b) || (nodes[b].degree || 0) - (nodes[a].degree || 0) || a - b);
    state.matches = new Set(hits);
    circles.forEach((c, i) => { c.classList.toggle("match", state.matches.has(i)); c.classList.toggle("dim", !!q && !state.matches.has(i)); });
    labels.forEach((t, i) => t.classList.toggle("matched", state.matches.has(i)));
    found.textContent = q ? `${hits.length} match${hits.length === 1 ? "" : "es"}` : "";
    if (hits.length) select(hits[0]);
  }
  search.addEventListener("input", runSearch);

  function drawHierarchy() {
    const chart = document.getElementById("hierarchy"), rowH = 26, labelW = 150, barW = 300;
    const rows = levels.map(atLevel);
    const most = maxOf(rows.map((r) => r.reduce((s, c) => s + (c.size || 0), 0)), 1);
    chart.setAttribute("viewBox", `0 0 ${labelW + barW + 10} ${rowH * rows.length + 4}`);
    chart.setAttribute("height", rowH * rows.length + 4);
    rows.forEach((row, k) => {
      const g = svg("g", { class: "level-row", "data-level": levels[k] });
      const t = svg("text", { x: 0, y: k * rowH + 17 });
      t.textContent = `level ${levels[k]}: ${row.length} communities`;
      g.append(t);
      let x = labelW;
      for (const c of row) {
        const w = (barW * (c.size || 0)) / most;
        g.append(tooltip(svg("rect", { x, y: k * rowH + 4, width: Math.max(w - 1, 0.5), height: rowH - 8, fill: colourOf.get(c.id) || NONE }),
          `${c.title || c.id}: ${c.size || 0} entities`));
        x += w;
      }
      g.addEventListener("click", () => setLevel(levels[k]));
      chart.append(g);
    });
  }

  draw();
  recolour();
  renderPanel();
  drawHierarchy();
  if (levels.length) levelSelect.value = state.level;
  document.body.dataset.ready = "1";
})();
