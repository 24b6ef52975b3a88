// ludolab play: the page keeps its game id here (not in a cookie), so two tabs play two games.
"use strict";
const ludolabPlay = (() => {
  let catalogue = [];
  let gameId = null;
  let last = null;
  const $ = (id) => document.getElementById(id);

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function fmt(x, d = 2) { return (x === null || x === undefined || Number.isNaN(x)) ? "–" : Number(x).toFixed(d); }
  function busy(on) {
    document.body.dataset.busy = on ? "1" : "0";
    document.querySelectorAll("button").forEach((b) => { b.disabled = on; });
    if (!on) $("hintbtn").disabled = !hintable();
  }
  // a hint is for the person's own decision in a running game
  function hintable() { return Boolean(gameId && last && last.your_turn && !last.over); }
  function message(text) {
    const m = $("message");
    m.hidden = !text;
    m.textContent = text || "";
  }

  async function api(method, path, body) {
    const opt = { method, headers: {} };
    if (body !== undefined) { opt.headers["Content-Type"] = "application/json"; opt.body = JSON.stringify(body); }
    const r = await fetch(path, opt);
    let data = null;
    try { data = await r.json(); } catch (e) { data = { error: `the server answered ${r.status}` }; }
    if (!r.ok) { const err = new Error(data.error || `the server answered ${r.status}`); err.status = r.status; throw err; }
    return data;
  }

  // ---------------------------------------------------------------- setup form
  function fillSetup() {
    const g = catalogue.find((x) => x.id === $("game").value) || catalogue[0];
    const vs = $("variant"); vs.innerHTML = "";
    g.variants.forEach((v) => { const o = el("option", "", v.name); o.value = v.name; o.title = v.text; vs.appendChild(o); });
    const bs = $("bot"); bs.innerHTML = "";
    g.bots.forEach((b) => { const o = el("option", "", b); o.value = b; if (b === g.best) o.selected = true; bs.appendChild(o); });
    fillPlayers();
  }
  function fillPlayers() {
    const g = catalogue.find((x) => x.id === $("game").value);
    const v = g.variants.find((x) => x.name === $("variant").value) || g.variants[0];
    const ps = $("players"); ps.innerHTML = "";
    v.players.forEach((n) => { const o = el("option", "", String(n)); o.value = n; ps.appendChild(o); });
    fillSeats();
  }
  function fillSeats() {
    const ss = $("seat"); ss.innerHTML = "";
    for (let i = 0; i < Number($("players").value); i++) { const o = el("option", "", String(i + 1)); o.value = i; ss.appendChild(o); }
    fillSeatBots();
  }
  // one bot per other seat (the "Bots" choice sets them all)
  function fillSeatBots() {
    const g = catalogue.find((x) => x.id === $("game").value);
    const box = $("seatbots"); box.innerHTML = "";
    const n = Number($("players").value), me = Number($("seat").value);
    $("bot").parentElement.hidden = n < 2;  // a game of one's own has no bots
    for (let i = 0; i < n; i++) {
      if (i === me || n <= 2) continue;  // with two players the one bot is the "Bots" choice
      const lab = el("label", "", `seat ${i + 1} `);
      const sel = el("select", "seatbot"); sel.dataset.seat = i;
      g.bots.forEach((b) => { const o = el("option", "", b); o.value = b; sel.appendChild(o); });
      sel.value = $("bot").value;
      lab.appendChild(sel); box.appendChild(lab);
    }
  }
  function chosenBots() {
    const per = Array.from(document.querySelectorAll("#seatbots select.seatbot"));
    if (!per.length) return $("bot").value;
    return per.sort((a, b) => Number(a.dataset.seat) - Number(b.dataset.seat)).map((x) => x.value);
  }

  async function newGame(opts) {
    const body = opts || { game: $("game").value, variant: $("variant").value, players: Number($("players").value),
                           bots: chosenBots(), seat: Number($("seat").value) };
    busy(true); message("");
    const was = $("status").textContent;
    $("status").textContent = "Dealing… (the first game of a kind compiles its engine once, which can take a while)";
    try {
      const p = await api("POST", "/api/new", body);
      gameId = p.id;
      $("hint").hidden = true; $("review").hidden = true;
      render(p);
    } catch (e) { message(e.message); $("status").textContent = gameId ? was : "No game."; }
    finally { busy(false); }
  }

  async function move(action) {
    if (!gameId) { message("start a game first"); return; }
    busy(true); message("");
    try {
      const p = await api("POST", `/api/game/${gameId}/move`, { action });
      $("hint").hidden = true;
      render(p);
    } catch (e) { message(e.message); }
    finally { busy(false); }
  }

  async function hint() {
    if (!hintable()) { message("a hint is for your own decision in a running game: start a game first"); return; }
    busy(true); message("");
    const h = $("hint"); h.hidden = false; h.innerHTML = ""; h.appendChild(el("h3", "", "Hint: thinking…"));
    try { showHint(await api("POST", `/api/game/${gameId}/hint`, {})); }
    catch (e) { h.hidden = true; message(e.message); }
    finally { busy(false); }
  }

  // ---------------------------------------------------------------- drawing
  function drawCard(c) {
    if (!c) return el("span", "card none", "·");
    const e = el("span", "card " + (c.cls || ""), c.text);
    if (c.title) e.title = c.title;
    return e;
  }

  function drawSection(s) {
    const box = el("div", "section");
    if (s.title) box.appendChild(el("h3", "", s.title));
    (s.rows || []).forEach((r) => {
      const row = el("div", "row");
      row.appendChild(el("span", "lab", r.label || ""));
      (r.cards || []).forEach((c) => row.appendChild(drawCard(c)));
      if (r.note) row.appendChild(el("span", "note", r.note));
      box.appendChild(row);
    });
    if (s.grid) {
      const t = el("table", "grid");
      const hr = el("tr"); hr.appendChild(el("th", "", ""));
      s.grid.cols.forEach((c) => hr.appendChild(el("th", "", c)));
      t.appendChild(hr);
      s.grid.rows.forEach((r) => {
        const tr = el("tr"); tr.appendChild(el("th", "", r.label));
        r.cells.forEach((c) => { const td = el("td"); if (c) td.appendChild(drawCard(c)); tr.appendChild(td); });
        t.appendChild(tr);
      });
      box.appendChild(t);
    }
    if (s.note) box.appendChild(el("div", "note", s.note));
    return box;
  }

  // a generic drawing of any JSON (the situation modules' dicts)
  function drawAny(x) {
    if (x === null || typeof x !== "object") return el("span", "", String(x));
    const d = el("div", "");
    if (Array.isArray(x)) { x.forEach((v) => { const s = drawAny(v); s.style.display = "inline-block"; s.style.marginRight = "6px"; d.appendChild(s); }); return d; }
    Object.entries(x).forEach(([k, v]) => { const r = el("div", "row"); r.appendChild(el("span", "lab", k)); r.appendChild(drawAny(v)); d.appendChild(r); });
    return d;
  }

  function render(p) {
    const before = last && last.id === p.id ? last.moments.length : 0;
    last = p;
    document.body.dataset.game = p.game;
    document.body.dataset.over = p.over ? "1" : "0";
    document.body.dataset.yourTurn = p.your_turn ? "1" : "0";
    $("status").textContent = `${p.title} (${p.variant}, ${p.players} player${p.players > 1 ? "s" : ""}) — ` + p.view.status;
    const v = $("view"); v.innerHTML = "";
    p.view.sections.forEach((s) => v.appendChild(drawSection(s)));
    if (p.view.situation) {
      const det = el("details", "section"); det.appendChild(el("summary", "", "The situation in the game's notation"));
      det.appendChild(drawAny(p.view.situation)); v.appendChild(det);
    }
    const news = $("moment");
    if (p.moments.length > before) {  // a hand, round or game just ended: say the scores
      const m = p.moments[p.moments.length - 1];
      const who = m.scores.map((x, i) => `${i === p.seat ? "you" : "seat " + (i + 1)} ${fmt(x, 0)}`);
      news.textContent = `After ${m.name}: ${who.join(", ")}`;
      news.hidden = false;
    } else if (!p.over) { news.hidden = true; }
    drawActions(p);
    $("tools").hidden = false;
    $("hintbtn").hidden = !hintable();
    $("hintbtn").disabled = !hintable();
    $("record").href = `/api/game/${gameId}/record`;
    $("record").hidden = !p.over;  // the record holds the deal: offered once the game is over
    drawScores(p);
    drawLog(p);
    if (p.over) review();
  }

  function drawActions(p) {
    const a = $("actions"); a.innerHTML = "";
    if (p.over) { a.appendChild(el("div", "result", p.result)); return; }
    if (p.picker && p.picker.kind === "subset") {
      const chosen = new Set();
      const wrap = el("div", "row");
      p.picker.items.forEach((c, i) => {
        const e = drawCard(c); e.classList.add("pick"); e.dataset.pos = i;
        e.onclick = () => {
          if (chosen.has(i)) { chosen.delete(i); e.classList.remove("sel"); }
          else if (chosen.size < p.picker.max) { chosen.add(i); e.classList.add("sel"); }
        };
        wrap.appendChild(e);
      });
      a.appendChild(wrap);
      const b = el("button", "act lay", p.picker.button);
      b.onclick = () => { let m = 0; chosen.forEach((i) => { m += 2 ** i; }); move(m); };
      a.appendChild(b);
      a.appendChild(el("span", "note", `click up to ${p.picker.max} cards, then lay them (none: lay nothing)`));
      return;
    }
    p.actions.forEach((x) => {
      const b = el("button", "act", x.label);
      b.dataset.action = x.action;
      b.onclick = () => move(x.action);
      a.appendChild(b);
    });
  }

  function drawScores(p) {
    const s = $("scores"); s.innerHTML = ""; s.hidden = false;
    s.appendChild(el("h3", "", `Score: ${p.units}`));
    const t = el("table");
    const hr = el("tr"); hr.appendChild(el("th", "", ""));
    for (let i = 0; i < p.players; i++) hr.appendChild(el("th", "num", i === p.seat ? "You" : `Seat ${i + 1}`));
    t.appendChild(hr);
    const shown = p.moments.slice(-5);
    if (p.moments.length > shown.length) {
      const tr = el("tr"); tr.appendChild(el("td", "note", `(${p.moments.length - shown.length} earlier not shown)`)); t.appendChild(tr);
    }
    shown.forEach((m) => {
      const tr = el("tr"); tr.appendChild(el("td", "", "after " + m.name));
      m.scores.forEach((x) => tr.appendChild(el("td", "num", fmt(x, 0))));
      t.appendChild(tr);
    });
    const tr = el("tr"); tr.appendChild(el("td", "", p.over ? "final" : "now"));
    (p.over ? p.final : p.scores).forEach((x) => tr.appendChild(el("td", "num", fmt(x, 0))));
    t.appendChild(tr);
    s.appendChild(t);
    const bots = p.bots.map((b, i) => b === null ? null : `seat ${i + 1}: ${b}`).filter((x) => x);
    s.appendChild(el("p", "small", bots.length ? "Bots — " + bots.join(", ") : "No bots: a turn of your own."));
  }

  function drawLog(p) {
    const l = $("log"); l.innerHTML = ""; l.hidden = p.log.length === 0;
    l.appendChild(el("h3", "", "Last moves"));
    const ol = el("ol");
    p.log.forEach((x) => ol.appendChild(el("li", "", `${x.who}: ${x.text}`)));
    l.appendChild(ol);
  }

  function showHint(h) {
    const box = $("hint"); box.innerHTML = ""; box.hidden = false;
    box.appendChild(el("h3", "", "Hint: every legal action, best first"));
    const t = el("table"); t.id = "hinttable";
    const hr = el("tr"); ["action", "value", "95% CI"].forEach((x, i) => hr.appendChild(el("th", i ? "num" : "", x)));
    t.appendChild(hr);
    h.rows.forEach((r) => {
      const tr = el("tr");
      tr.appendChild(el("td", "", r.label));
      tr.appendChild(el("td", "num", fmt(r.value)));
      const ci = r.value === null ? "only choice" : r.ci_low === r.ci_high ? "exact" : `${fmt(r.ci_low)} … ${fmt(r.ci_high)}`;
      tr.appendChild(el("td", "num", ci));
      t.appendChild(tr);
    });
    box.appendChild(t);
    const how = h.method.charAt(0).toUpperCase() + h.method.slice(1);
    box.appendChild(el("p", "small", `Values: ${h.units}. Budget: ${h.budget}. ${how}.`));
    box.appendChild(el("p", "small verdict", h.verdict));
    if (h.rows.length && h.rows[0].action !== undefined) {
      document.querySelectorAll("#actions .card.pick").forEach((c) => {  // a forecast: outline the best set
        c.classList.toggle("best", ((h.rows[0].action >> Number(c.dataset.pos)) & 1) === 1);
      });
      document.querySelectorAll("#actions button.act").forEach((b) => {
        if (Number(b.dataset.action) === h.rows[0].action) b.classList.add("best");
      });
    }
  }

  async function review() {
    const box = $("review"); box.hidden = false; box.innerHTML = "";
    box.appendChild(el("h3", "", "Your costliest decisions: reviewing…"));
    try {
      const r = await api("GET", `/api/game/${gameId}/review`);
      box.innerHTML = "";
      box.appendChild(el("h3", "", "Your costliest decisions"));
      if (!r.rows.length) {
        box.appendChild(el("p", "small", "None: each of your decisions was worth as much as the strong player's."));
        return;
      }
      const t = el("table"); t.id = "reviewtable";
      const hr = el("tr"); ["you chose", "the strong player", "cost"].forEach((x, i) => hr.appendChild(el("th", i === 2 ? "num" : "", x)));
      t.appendChild(hr);
      r.rows.forEach((x) => {
        const tr = el("tr");
        tr.appendChild(el("td", "", `${x.chosen} (${fmt(x.chosen_value)})`));
        tr.appendChild(el("td", "", `${x.best} (${fmt(x.best_value)})`));
        tr.appendChild(el("td", "num", fmt(x.cost)));
        t.appendChild(tr);
      });
      box.appendChild(t);
      box.appendChild(el("p", "small", "Each decision advised again at a small budget; cost = what the best action is worth minus what yours was."));
    } catch (e) { box.innerHTML = ""; box.appendChild(el("p", "small", e.message)); }
  }

  async function init() {
    document.body.dataset.busy = "0";
    const c = await api("GET", "/api/catalogue");
    catalogue = c.games;
    const gs = $("game");
    catalogue.forEach((g) => { const o = el("option", "", g.title); o.value = g.id; gs.appendChild(o); });
    gs.onchange = fillSetup; $("variant").onchange = fillPlayers; $("players").onchange = fillSeats;
    $("seat").onchange = fillSeatBots; $("bot").onchange = fillSeatBots;
    fillSetup();
    $("start").onclick = () => newGame();
    $("hintbtn").onclick = hint;
    document.body.dataset.ready = "1";
  }
  window.addEventListener("DOMContentLoaded", init);
  return { newGame, move, hint, gameId: () => gameId, last: () => last };
})();
