// Benchmark explorer: shows the result sets of docs/bench (written by
// bench/rpcbench -json and bench/peers) one at a time or two side by side.
//
// The page reads ../bench/index.json, then the sets it lists, on demand. The
// selection lives in the URL hash (#set=…&scenario=…&lib=…&vs=…), so a link
// opens the same view. No build step and no dependencies.
//
// The Go test in this directory drives the page through its DOM hooks: the
// ids of the controls and tables, data-state on #explorer, data-col and
// data-value on the cells, data-set and data-field on the conditions. It
// computes the expected cell text with a copy of the formatting functions
// below (format_test.go), so change the two together.
"use strict";

(() => {
  const INDEX_URL = new URL("../bench/index.json", document.baseURI);
  const OWN_LIBRARY = "jsonrpc-go"; // the library of sets without a "peer" field
  const DASH = "\u2014"; // shown for a missing value
  const COUNT = ["", " k", " M", " G", " T"];
  const NANOS = [" ns", " \u00b5s", " ms", " s"];
  const MICROS = [" \u00b5s", " ms", " s"];

  // ---- Formatting (mirrored in format_test.go) ----

  // fixed3 formats v, below 1000 in magnitude after rounding, with three
  // significant digits and at least two decimals below 10: 2.79, 31.0, 358.
  function fixed3(v) {
    let s = v.toFixed(2);
    if (Math.abs(Number(s)) >= 10) {
      s = v.toFixed(1);
      if (Math.abs(Number(s)) >= 100) s = v.toFixed(0);
    }
    return s;
  }

  // scaled formats x in the first of units that keeps it below 1000:
  // scaled(2792749, COUNT) is "2.79 M", scaled(30560, NANOS) is "30.6 µs".
  function scaled(x, units) {
    if (typeof x !== "number" || !Number.isFinite(x)) return DASH;
    if (x === 0) return "0" + units[0];
    let v = x;
    let i = 0;
    while (i < units.length - 1 && Math.abs(v) >= 1000) {
      v /= 1000;
      i++;
    }
    let s = fixed3(v);
    if (i < units.length - 1 && Math.abs(Number(s)) >= 1000) {
      v /= 1000;
      i++;
      s = fixed3(v);
    }
    return s + units[i];
  }

  // significant counts the significant digits of a formatted number.
  function significant(s) {
    return s.replace(/[^0-9]/g, "").replace(/^0+/, "").length;
  }

  // ratio formats a ratio with three significant digits (up to six
  // decimals) and a times sign: 1.74×, 0.0545×, 0.00542×.
  function ratio(x) {
    if (typeof x !== "number" || !Number.isFinite(x)) return DASH;
    if (x === 0) return "0\u00d7";
    let s = fixed3(x);
    for (let d = 3; d <= 6 && significant(s) < 3; d++) s = x.toFixed(d);
    return s + "\u00d7";
  }

  // when formats an RFC 3339 UTC date as "2026-11-29 21:40 UTC".
  function when(date) {
    if (typeof date !== "string" || date === "") return DASH;
    const m = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d)(?::\d\d(?:\.\d+)?)?Z$/.exec(date);
    return m ? `${m[1]} ${m[2]} UTC` : date;
  }

  function text(v) {
    return v === undefined || v === null || v === "" ? DASH : String(v);
  }

  // ---- Data ----

  const isNumber = (v) => typeof v === "number" && Number.isFinite(v);
  const scenarioOf = (row, set) => row.scenario || set.mode || "";
  const libraryOf = (row) => row.peer || OWN_LIBRARY;
  const keyOf = (row) => JSON.stringify([row.name, row.workers]);

  const cache = new Map(); // file name → promise of the parsed set

  async function fetchJSON(url) {
    const resp = await fetch(url, { cache: "no-cache" });
    if (!resp.ok) throw new Error(`${url.pathname}: ${resp.status} ${resp.statusText}`);
    return resp.json();
  }

  function load(file) {
    if (!cache.has(file)) {
      const p = fetchJSON(new URL(file, INDEX_URL)).then((set) => {
        if (!set || !Array.isArray(set.rows)) throw new Error(`${file}: no rows`);
        return set;
      });
      p.catch(() => cache.delete(file)); // let a later view try again
      cache.set(file, p);
    }
    return cache.get(file);
  }

  // matches applies the scenario and library filters ("" matches all).
  function matches(set, view) {
    return (row) =>
      (!view.scenario || scenarioOf(row, set) === view.scenario) &&
      (!view.lib || libraryOf(row) === view.lib);
  }

  // distinct returns the distinct values of f over the rows of the sets, in
  // order of first appearance.
  function distinct(sets, f) {
    const seen = new Set();
    for (const set of sets) for (const row of set.rows) seen.add(f(row, set));
    return [...seen];
  }

  // join pairs the rows of a and b by name and workers: the rows of a in
  // order, then the rows only b has. A missing side is null.
  function join(aRows, bRows) {
    const byKey = new Map();
    for (const row of bRows) {
      const k = keyOf(row);
      if (!byKey.has(k)) byKey.set(k, []);
      byKey.get(k).push(row);
    }
    const pairs = aRows.map((a) => [a, byKey.get(keyOf(a))?.shift() ?? null]);
    for (const row of bRows) {
      const left = byKey.get(keyOf(row));
      if (left.includes(row)) {
        pairs.push([null, row]);
        left.splice(left.indexOf(row), 1);
      }
    }
    return pairs;
  }

  // ---- DOM ----

  const $ = (id) => document.getElementById(id);
  const root = $("explorer");

  function el(tag, props = {}, children = []) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props)) {
      if (k.startsWith("data-") || k === "title" || k === "scope") {
        if (v !== undefined) e.setAttribute(k, v);
      } else {
        e[k] = v;
      }
    }
    e.append(...children);
    return e;
  }

  function fillSelect(select, options, value) {
    select.replaceChildren(...options.map(([v, label]) => el("option", { value: v, textContent: label })));
    select.value = value;
  }

  // cell builds a table cell; value, when a number, goes to data-value.
  function cell(col, content, value) {
    return el("td", { "data-col": col, "data-value": isNumber(value) ? String(value) : undefined, textContent: content });
  }

  // ---- Columns ----

  // singleColumns lists the columns of one set. A column for an optional
  // field shows when any row of the set has it, whatever the filters.
  function singleColumns(set) {
    const has = (field) => set.rows.some((r) => isNumber(r[field]));
    const cols = [
      { col: "name", label: "name", td: (r) => cell("name", text(r.name)) },
      { col: "workers", label: "workers", title: "goroutines, or connections in the tcp and http modes", td: (r) => cell("workers", text(r.workers), r.workers) },
      { col: "median", label: "median req/s", td: (r) => cell("median", scaled(r.median_rps, COUNT), r.median_rps) },
      { col: "range", label: "min \u2013 max", title: "slowest and fastest run", td: (r) => cell("range", `${scaled(r.min_rps, COUNT)} \u2013 ${scaled(r.max_rps, COUNT)}`) },
      { col: "ns", label: "time/call", title: "ns_per_call", td: (r) => cell("ns", scaled(r.ns_per_call, NANOS), r.ns_per_call) },
      { col: "allocs", label: "allocs/call", td: (r) => cell("allocs", scaled(r.allocs_per_call, COUNT), r.allocs_per_call) },
    ];
    if (has("ratio_to_jsonrpc_go")) {
      cols.push({ col: "ratio", label: "row / jsonrpc-go", title: "the row's median req/s over jsonrpc-go's in the same scenario (above 1: faster than jsonrpc-go)", td: (r) => cell("ratio", ratio(r.ratio_to_jsonrpc_go), r.ratio_to_jsonrpc_go) });
    }
    if (has("p50_us")) {
      cols.push({
        col: "latency",
        label: "p50 / p90 / p99",
        title: "latency percentiles",
        td: (r) => cell("latency", isNumber(r.p50_us) ? [r.p50_us, r.p90_us, r.p99_us].map((x) => scaled(x, MICROS)).join(" / ") : DASH),
      });
    }
    cols.push({ col: "note", label: "note", td: (r) => cell("note", r.note ?? "") });
    return cols;
  }

  // compareColumns lists the columns of a comparison of two sets.
  function compareColumns() {
    const side = (row, f) => (row ? f(row) : undefined);
    return [
      { col: "name", label: "name", td: ([a, b]) => cell("name", text((a ?? b).name)) },
      { col: "workers", label: "workers", td: ([a, b]) => cell("workers", text((a ?? b).workers), (a ?? b).workers) },
      { col: "median-a", label: "median A", td: ([a]) => cell("median-a", scaled(side(a, (r) => r.median_rps), COUNT), side(a, (r) => r.median_rps)) },
      { col: "median-b", label: "median B", td: ([, b]) => cell("median-b", scaled(side(b, (r) => r.median_rps), COUNT), side(b, (r) => r.median_rps)) },
      {
        col: "ratio-ba",
        label: "B / A",
        title: "median req/s of B over A",
        td: ([a, b]) => {
          const q = a && b && isNumber(a.median_rps) && isNumber(b.median_rps) && a.median_rps !== 0 ? b.median_rps / a.median_rps : undefined;
          const c = cell("ratio-ba", ratio(q), q);
          if (isNumber(q)) c.classList.add(q >= 1 ? "up" : "down");
          return c;
        },
      },
      { col: "ns-a", label: "time/call A", td: ([a]) => cell("ns-a", scaled(side(a, (r) => r.ns_per_call), NANOS), side(a, (r) => r.ns_per_call)) },
      { col: "ns-b", label: "time/call B", td: ([, b]) => cell("ns-b", scaled(side(b, (r) => r.ns_per_call), NANOS), side(b, (r) => r.ns_per_call)) },
      { col: "allocs-a", label: "allocs/call A", td: ([a]) => cell("allocs-a", scaled(side(a, (r) => r.allocs_per_call), COUNT), side(a, (r) => r.allocs_per_call)) },
      { col: "allocs-b", label: "allocs/call B", td: ([, b]) => cell("allocs-b", scaled(side(b, (r) => r.allocs_per_call), COUNT), side(b, (r) => r.allocs_per_call)) },
    ];
  }

  // ---- Rendering ----

  const CONDITIONS = [
    ["date", "date", (s) => when(s.date)],
    ["mode", "mode", (s) => text(s.mode)],
    ["go", "Go", (s) => text(s.go)],
    ["platform", "OS/arch", (s) => (s.goos || s.goarch ? `${text(s.goos)}/${text(s.goarch)}` : DASH)],
    ["cpu", "CPU", (s) => text(s.cpu)],
    ["cores", "cores", (s) => text(s.cores)],
    ["gomaxprocs", "GOMAXPROCS", (s) => text(s.gomaxprocs)],
    ["duration", "duration of a run", (s) => text(s.duration)],
  ];

  function renderConditions(sides) {
    const head = el("tr", {}, [el("th", { scope: "col", textContent: "" })]);
    for (const [key, file] of sides.map((s) => [s.key, s.file])) {
      head.append(el("th", { scope: "col", "data-set": key, textContent: sides.length > 1 ? `${key.toUpperCase()}: ${file}` : file }));
    }
    const body = CONDITIONS.map(([field, label, f]) =>
      el("tr", {}, [
        el("th", { scope: "row", textContent: label }),
        ...sides.map((s) => el("td", { "data-set": s.key, "data-field": field, textContent: f(s.set) })),
      ]),
    );
    $("conditions").replaceChildren(el("thead", {}, [head]), el("tbody", {}, body));
  }

  function renderTable(cols, items, describe) {
    const head = el("tr", {}, cols.map((c) => el("th", { scope: "col", "data-col": c.col, title: c.title, textContent: c.label })));
    $("rows").tHead.replaceChildren(head);
    const body = items.map((item) => {
      const row = item.row ?? item.pair[0] ?? item.pair[1];
      const tr = el("tr", { "data-name": String(row.name), "data-workers": String(row.workers) }, cols.map((c) => c.td(item.row ?? item.pair)));
      if (item.pair) tr.dataset.side = item.pair[0] && item.pair[1] ? "both" : item.pair[0] ? "a" : "b";
      return tr;
    });
    $("rows").tBodies[0].replaceChildren(...body);
    $("empty").hidden = items.length > 0;
    $("summary").textContent = describe;
  }

  // drawBars shades each median cell by its share of the largest median shown.
  function drawBars() {
    const cells = [...document.querySelectorAll('#rows td[data-col="median"]')];
    const max = Math.max(0, ...cells.map((c) => Number(c.dataset.value) || 0));
    for (const c of cells) {
      const share = max > 0 ? (Number(c.dataset.value) || 0) / max : 0;
      c.style.setProperty("--share", `${(share * 100).toFixed(1)}%`);
      c.classList.add("bar");
    }
  }

  function renderSkipped(set, view) {
    const skipped = (Array.isArray(set.skipped) ? set.skipped : []).filter(
      (s) => (!view.scenario || s.scenario === view.scenario) && (!view.lib || s.peer === view.lib),
    );
    $("skipped-list").replaceChildren(
      ...skipped.map((s) => el("li", { "data-scenario": text(s.scenario), "data-peer": text(s.peer), textContent: `${text(s.peer)} (${text(s.scenario)}): ${text(s.why)}` })),
    );
    $("skipped").hidden = skipped.length === 0;
  }

  function render(view, a, b) {
    const sets = b ? [a, b] : [a];
    const scenarios = distinct(sets, scenarioOf);
    const libraries = distinct(sets, libraryOf);
    if (!scenarios.includes(view.scenario)) view.scenario = "";
    if (!libraries.includes(view.lib)) view.lib = "";
    fillSelect($("scenario"), [["", "all scenarios"], ...scenarios.map((s) => [s, s])], view.scenario);
    fillSelect($("lib"), [["", "all libraries"], ...libraries.map((l) => [l, l])], view.lib);
    $("set").value = view.set;
    $("vs").value = view.vs;
    $("swap").disabled = !b;
    root.dataset.compare = b ? "true" : "false";

    const aRows = a.rows.filter(matches(a, view));
    if (!b) {
      renderConditions([{ key: "a", file: view.set, set: a }]);
      renderTable(singleColumns(a), aRows.map((row) => ({ row })), `${aRows.length} of ${a.rows.length} rows`);
      drawBars();
      renderSkipped(a, view);
      return;
    }
    const bRows = b.rows.filter(matches(b, view));
    const pairs = join(aRows, bRows);
    const both = pairs.filter(([x, y]) => x && y).length;
    renderConditions([
      { key: "a", file: view.set, set: a },
      { key: "b", file: view.vs, set: b },
    ]);
    renderTable(compareColumns(), pairs.map((pair) => ({ pair })), `${pairs.length} rows: ${both} in both sets, ${aRows.length - both} only in A, ${bRows.length - both} only in B`);
    $("skipped-list").replaceChildren();
    $("skipped").hidden = true;
  }

  // ---- State and URL ----

  let index = []; // entries of index.json, newest first
  let generation = 0; // views started; an older one that finishes late is dropped

  function readURL() {
    const p = new URLSearchParams(location.search);
    for (const [k, v] of new URLSearchParams(location.hash.slice(1))) p.set(k, v);
    return { set: p.get("set") ?? "", scenario: p.get("scenario") ?? "", lib: p.get("lib") ?? "", vs: p.get("vs") ?? "" };
  }

  function writeURL(view) {
    const p = new URLSearchParams();
    for (const k of ["set", "scenario", "lib", "vs"]) if (view[k]) p.set(k, view[k]);
    const hash = "#" + p.toString();
    if (location.hash !== hash || location.search !== "") history.replaceState(null, "", location.pathname + hash);
  }

  function readControls() {
    return { set: $("set").value, scenario: $("scenario").value, lib: $("lib").value, vs: $("vs").value };
  }

  function notice(msg) {
    $("notice").textContent = msg;
    $("notice").hidden = msg === "";
  }

  async function show(view) {
    const gen = ++generation;
    root.dataset.state = "loading";
    const known = new Set(index.map((e) => e.file));
    const notes = [];
    if (!known.has(view.set)) {
      if (view.set) notes.push(`No result set ${view.set} in index.json; showing the newest.`);
      view.set = index[0].file;
    }
    if (view.vs && !known.has(view.vs)) {
      notes.push(`No result set ${view.vs} in index.json to compare with.`);
      view.vs = "";
    }
    try {
      const [a, b] = await Promise.all([load(view.set), view.vs ? load(view.vs) : null]);
      if (gen !== generation) return;
      render(view, a, b);
      writeURL(view);
      notice(notes.join(" "));
      $("error").hidden = true;
      root.dataset.state = "ready";
    } catch (err) {
      if (gen !== generation) return;
      fail(err);
    }
  }

  function fail(err) {
    $("error").textContent = `Could not load the results: ${err.message}`;
    $("error").hidden = false;
    root.dataset.state = "error";
  }

  async function start() {
    try {
      const data = await fetchJSON(INDEX_URL);
      index = (Array.isArray(data.sets) ? data.sets : []).filter((e) => e && typeof e.file === "string" && /^[^/\\]+\.json$/.test(e.file));
    } catch (err) {
      fail(err);
      return;
    }
    if (index.length === 0) {
      fail(new Error("index.json lists no result sets"));
      return;
    }
    // Newest first; the same date sorts by file name.
    index.sort((x, y) => (x.date === y.date ? (x.file < y.file ? -1 : x.file > y.file ? 1 : 0) : x.date < y.date ? 1 : -1));
    const label = (e) => `${when(e.date)} \u00b7 ${e.mode} (${e.file})`;
    fillSelect($("set"), index.map((e) => [e.file, label(e)]), "");
    fillSelect($("vs"), [["", "nothing"], ...index.map((e) => [e.file, label(e)])], "");

    for (const id of ["set", "scenario", "lib", "vs"]) $(id).addEventListener("change", () => show(readControls()));
    $("swap").addEventListener("click", () => {
      const v = readControls();
      show({ ...v, set: v.vs, vs: v.set });
    });
    window.addEventListener("hashchange", () => show(readURL()));
    await show(readURL());
  }

  start();
})();
