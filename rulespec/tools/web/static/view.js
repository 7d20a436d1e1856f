// rulespec serve: draws one view (an observation, its log, the legal actions) into the page.
// Shared by game.js and replay.js.  Everything is set with textContent: no text is read as HTML.
"use strict";

const RS = (() => {
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  function meta() {
    const m = document.getElementById("meta");
    return m ? JSON.parse(m.textContent) : {per_player_vars: [], zone_docs: {}};
  }

  function showMessage(text, isError) {
    const m = document.getElementById("message");
    if (!m) return;
    m.textContent = text || "";
    m.hidden = !text;
    m.classList.toggle("error", !!isError);
  }

  function cardSpan(name) {
    return el("span", name === "hidden card" ? "card hidden-card" : "card", name);
  }

  function cardList(names) {
    const box = el("span", "cards");
    names.forEach(n => box.appendChild(cardSpan(n)));
    return box;
  }

  function playerOf(zoneName) {
    const m = /^(.*)\[(P\d+)\]$/.exec(zoneName);
    return m ? {base: m[1], player: m[2]} : {base: zoneName, player: null};
  }

  // ------------------------------------------------------------------ status
  function decisionText(obs, you) {
    if (obs.terminal) {
      const w = obs.winners || [];
      return "Game over. " + (w.length ? "Winner" + (w.length > 1 ? "s" : "") + ": " + w.join(", ") : "Nobody wins.");
    }
    const d = obs.decision;
    if (!d) return "";
    const who = d.who === you ? d.who + " (you)" : d.who;
    if (d.kind === "turn") return who + " to play, phase " + d.phase;
    if (d.kind === "response") return "Response window: " + who + " may answer " + d.to;
    if (d.kind === "choice") return "Choice: " + who + " chooses" + (d.prompt ? ": " + d.prompt : "");
    return "";
  }

  function renderStatus(obs, you, extra) {
    const s = clear(document.getElementById("status"));
    const kind = obs.terminal ? "over" : (obs.decision ? obs.decision.kind : "");
    s.dataset.decision = kind;
    s.dataset.who = obs.decision ? obs.decision.who : "";
    const line = el("div", "decision " + kind, decisionText(obs, you));
    line.id = "decision";
    s.appendChild(line);
    s.appendChild(el("div", "phase-line", "Phase: " + obs.phase + (obs.active ? " · deciding: " + obs.active : "")));
    if (extra) s.appendChild(el("div", "extra", extra));
  }

  // ------------------------------------------------------------------ actions
  function renderActions(obs, title, onPick) {
    const panel = clear(document.getElementById("actions-panel"));
    const actions = obs.legal_actions || [];
    panel.hidden = actions.length === 0;
    if (!actions.length) return;
    panel.appendChild(el("h2", null, title + " (" + actions.length + " legal action" + (actions.length > 1 ? "s" : "") + ")"));
    const filter = el("input", "filter");
    filter.type = "search";
    filter.placeholder = "filter the actions…";
    filter.id = "filter";
    if (actions.length > 12) panel.appendChild(filter);
    const list = el("div", "action-list");
    panel.appendChild(list);
    const button = text => {
      const b = el("button", "action", text);
      b.dataset.action = text;
      if (onPick) b.addEventListener("click", () => onPick(text)); else b.disabled = true;
      return b;
    };
    if (actions.length <= 24) {
      actions.forEach(a => list.appendChild(button(a)));
    } else {  // grouped by their first word, closed groups for the long ones
      const groups = new Map();
      actions.forEach(a => {
        const k = a.split(" ")[0];
        if (!groups.has(k)) groups.set(k, []);
        groups.get(k).push(a);
      });
      groups.forEach((texts, k) => {
        const d = el("details", "group");
        d.open = texts.length <= 12;
        d.appendChild(el("summary", null, k + " (" + texts.length + ")"));
        texts.forEach(a => d.appendChild(button(a)));
        list.appendChild(d);
      });
    }
    filter.addEventListener("input", () => {
      const q = filter.value.trim().toLowerCase();
      list.querySelectorAll("button.action").forEach(b => {
        b.hidden = q !== "" && !b.dataset.action.toLowerCase().includes(q);
      });
      list.querySelectorAll("details.group").forEach(d => {
        const any = Array.from(d.querySelectorAll("button.action")).some(b => !b.hidden);
        d.hidden = !any;
        if (q) d.open = any;
      });
    });
  }

  // ------------------------------------------------------------------ stack
  function renderStack(obs) {
    const box = clear(document.getElementById("stack"));
    const stack = obs.stack || [];
    if (!stack.length) {
      box.appendChild(el("p", "empty", "empty"));
      return;
    }
    const ol = el("ol", "stack-list");
    for (let i = stack.length - 1; i >= 0; i--) {  // the top first
      const e = stack[i];
      const li = el("li", "entry" + (e.cancelled ? " cancelled" : ""));
      li.appendChild(el("span", "effect", e.effect));
      li.appendChild(el("span", "by", " by " + e.by + (e.target ? ", target " + e.target : "")));
      if (i === stack.length - 1) li.appendChild(el("span", "top", " (top)"));
      if (e.cards && e.cards.length) {
        li.appendChild(el("span", null, " · cards: "));
        li.appendChild(cardList(e.cards));
      }
      if (e.fields) {
        li.appendChild(el("span", "fields", " · " + Object.entries(e.fields).map(([k, v]) => k + " " + JSON.stringify(v)).join(", ")));
      }
      if (e.cancelled) li.appendChild(el("span", "cancel-note", " · cancelled"));
      ol.appendChild(li);
    }
    box.appendChild(ol);
  }

  // ------------------------------------------------------------------ zones
  function zoneRow(name, z, docs) {
    const {base} = playerOf(name);
    const row = el("div", "zone");
    row.dataset.zone = name;
    const label = el("span", "zone-name", base);
    if (docs[base]) label.title = docs[base];
    row.appendChild(label);
    if (z.cards !== undefined) {
      if (!z.cards.length) {
        row.classList.add("is-empty");
        row.appendChild(el("span", "none", "empty"));
      } else {
        row.appendChild(cardList(z.cards));
      }
      if (z.plays && z.plays.length) {
        row.appendChild(el("div", "plays", "played: " + z.plays.map(([p, cs]) => p + " " + cs.join(" + ")).join("; ")));
      }
    } else {
      const c = el("span", "count", z.count + " hidden card" + (z.count === 1 ? "" : "s"));
      c.dataset.count = z.count;
      if (!z.count) row.classList.add("is-empty");
      row.appendChild(c);
      // the cards seen on their own: the top of a "top public" pile, those you know, the rest
      // revealed (each card once: "shown" holds them all)
      const rest = (z.shown || []).slice();
      const take = cs => cs.filter(c => { const i = rest.indexOf(c); if (i < 0) return false; rest.splice(i, 1); return true; });
      [["top", z.top ? take([z.top]) : []], ["you know", take(z.known || [])], ["shown", rest]].forEach(([what, cs]) => {
        if (!cs.length) return;
        row.appendChild(el("span", null, " " + what + ": "));
        row.appendChild(cardList(cs));
      });
    }
    return row;
  }

  function renderZones(obs, you, seatNames) {
    const box = clear(document.getElementById("zones"));
    const docs = meta().zone_docs || {};
    const shared = [], byPlayer = new Map();
    Object.entries(obs.zones).forEach(([name, z]) => {
      const {player} = playerOf(name);
      if (player === null) shared.push([name, z]);
      else {
        if (!byPlayer.has(player)) byPlayer.set(player, []);
        byPlayer.get(player).push([name, z]);
      }
    });
    const players = Array.from(byPlayer.keys()).sort((a, b) => (a === you ? -1 : b === you ? 1 : a.localeCompare(b, undefined, {numeric: true})));
    players.forEach(p => {
      const g = el("div", "zone-group" + (p === you ? " yours" : ""));
      g.dataset.player = p;
      g.appendChild(el("h3", null, p + (p === you ? " (you)" : (seatNames && seatNames[p] ? " (" + seatNames[p] + ")" : ""))));
      byPlayer.get(p).forEach(([n, z]) => g.appendChild(zoneRow(n, z, docs)));
      box.appendChild(g);
    });
    const g = el("div", "zone-group shared");
    g.appendChild(el("h3", null, "Shared"));
    shared.forEach(([n, z]) => g.appendChild(zoneRow(n, z, docs)));
    box.appendChild(g);
  }

  // ------------------------------------------------------------------ variables
  function show(v) {
    if (v === null || v === undefined) return "—";
    if (Array.isArray(v)) return "[" + v.map(show).join(", ") + "]";
    if (typeof v === "object") return JSON.stringify(v);
    return String(v);
  }

  let varsOpen = null;  // the reader's choice, kept from one drawing to the next
  function renderVars(obs) {
    const box = clear(document.getElementById("vars"));
    const perPlayer = new Set(meta().per_player_vars || []);
    const entries = Object.entries(obs.vars);
    const d = el("details", "vars-box");
    d.open = varsOpen === null ? entries.length <= 25 : varsOpen;
    d.addEventListener("toggle", () => { varsOpen = d.open; });
    d.appendChild(el("summary", null, entries.length + " variable" + (entries.length === 1 ? "" : "s")));
    box.appendChild(d);
    const t = el("table", "vars");
    entries.forEach(([k, v]) => {
      const tr = el("tr");
      tr.dataset.var = k;
      tr.appendChild(el("th", null, k));
      const td = el("td");
      if (perPlayer.has(k) && Array.isArray(v)) td.textContent = v.map((x, i) => "P" + (i + 1) + " " + show(x)).join(" · ");
      else td.textContent = show(v);
      tr.appendChild(td);
      t.appendChild(tr);
    });
    d.appendChild(t);
  }

  // ------------------------------------------------------------------ log
  let shownLines = 0;
  function renderLog(lines, markNew) {
    const ol = clear(document.getElementById("log"));
    lines.forEach((line, i) => {
      const cls = line.startsWith("-- ") ? "phase" : (line.startsWith(" ") ? "sub" : "decision");
      const li = el("li", cls + (markNew && i >= shownLines && shownLines > 0 ? " new" : ""), line.trim());
      ol.appendChild(li);
    });
    shownLines = lines.length;
    ol.scrollTop = ol.scrollHeight;
  }

  function resetLog() { shownLines = 0; }

  function renderView(view, opts) {
    const obs = view.observation;
    renderStatus(obs, opts.you, opts.extra);
    renderActions(obs, opts.actionsTitle || "Your decision", opts.onPick);
    renderStack(obs);
    renderZones(obs, opts.you, opts.seatNames);
    renderVars(obs);
    renderLog(view.log, !!opts.markNew);
  }

  async function getJSON(url, options) {
    const r = await fetch(url, options);
    let data;
    try { data = await r.json(); } catch (e) { data = {error: "the server answered " + r.status + " without JSON"}; }
    return {ok: r.ok, status: r.status, data};
  }

  return {el, clear, showMessage, renderView, renderLog, resetLog, getJSON, cardList};
})();
