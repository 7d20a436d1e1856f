// rulespec serve: draws one view (an observation, its log, the legal actions) as a card table.
// Shared by game.js and replay.js.  Everything is set with textContent: no text is read as HTML.
// The rules' facts (layout, words, docs, card faces) come from the page's data block (table.py);
// a game's facts only from the view the server sent for this seat.
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

  let META = null;
  function meta() {
    if (META === null) {
      const m = document.getElementById("meta");
      META = Object.assign({per_player_vars: [], zone_docs: {}, layout: {seat: [], table: [], hand: [], aside: []},
                            vars: {}, zones: {}, phases: {}, effects: {}, actions: {}, cards: {}},
                           m ? JSON.parse(m.textContent) : {});
    }
    return META;
  }

  function showMessage(text, isError) {
    const m = document.getElementById("message");
    if (!m) return;
    m.textContent = text || "";
    m.hidden = !text;
    m.classList.toggle("error", !!isError);
  }

  // ------------------------------------------------------------------ words
  const said = (table, name) => (meta()[table][name] || {words: String(name).replace(/_/g, " "), doc: ""});
  const HIDDEN = "hidden card";

  function valueText(v, type) {
    if (v === null || v === undefined) return "—";
    if (v === true) return "yes";
    if (v === false) return "no";
    if (Array.isArray(v)) return v.length ? v.map(x => valueText(x, type)).join(", ") : "none";
    if (typeof v === "object") return JSON.stringify(v);
    return type === "enum" ? String(v).replace(/_/g, " ") : String(v);  // an enum member in words
  }

  function playerOf(zoneName) {
    const m = /^(.*)\[(P\d+)\]$/.exec(zoneName);
    return m ? {base: m[1], player: m[2]} : {base: zoneName, player: null};
  }

  // ------------------------------------------------------------------ cards
  let playable = new Map();  // key(zone, label) -> the texts of the legal actions that use that card
  let selected = null;       // the card picked: {zone, label}
  const key = (zone, label) => zone + "\u0000" + label;

  function cardFace(label, zone) {
    const f = meta().cards[label] || {name: label, corner: "", suit: "", ink: "", props: [], doc: ""};
    const c = el("div", "card face" + (f.ink ? " ink-" + f.ink : "") + (f.band ? " band-" + f.band : "")
                 + (label.length <= 3 ? " short" : ""));
    c.dataset.label = label;
    if (zone) c.dataset.in = zone;
    const printed = f.props.map(([k, v]) => (v ? k + " " + v : k)).join(" · ");
    c.title = [label, printed, f.doc].filter(x => x).join("\n");
    if (f.corner || f.suit) {
      c.classList.add("has-corner");
      const k = el("span", "corner");
      if (f.corner) k.appendChild(el("span", "rank", f.corner));
      if (f.suit) k.appendChild(el("span", "suit", f.suit));
      c.appendChild(k);
    }
    c.appendChild(el("span", "title", label));
    if (printed) c.appendChild(el("span", "props", printed));
    if (f.doc) c.classList.add("has-doc");
    if (zone && playable.has(key(zone, label))) c.classList.add("playable");
    if (selected && zone === selected.zone && label === selected.label) c.classList.add("selected");
    return c;
  }

  function cardBack() {
    const c = el("div", "card back");
    c.title = "a card you cannot see";
    return c;
  }

  const card = (label, zone) => (label === HIDDEN ? cardBack() : cardFace(label, zone));

  function cardRow(labels, cls) {
    const box = el("div", "cards" + (cls ? " " + cls : ""));
    labels.forEach(l => box.appendChild(card(l)));
    return box;
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
    if (d.kind === "turn") return who + " to play, phase " + said("phases", d.phase).words;
    if (d.kind === "response") return "Response window: " + who + " may answer " + said("effects", d.to).words;
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
    const phase = said("phases", obs.phase);
    const pl = el("div", "phase-line");
    pl.appendChild(el("span", null, "Phase: "));
    const pw = el("span", "phase-name", phase.words);
    if (phase.doc) pw.title = phase.doc;
    pl.appendChild(pw);
    if (obs.active) pl.appendChild(el("span", null, " · deciding: " + obs.active));
    if (phase.doc) pl.appendChild(el("span", "phase-doc", " — " + phase.doc));
    s.appendChild(pl);
    if (extra) s.appendChild(el("div", "extra", extra));
  }

  // ------------------------------------------------------------------ zones
  const PILE_SHOWN = 4;  // a long pile shows its top cards; the others open with a click

  function zoneBox(name, z, where) {
    const {base} = playerOf(name);
    const info = said("zones", base);
    const box = el("div", "zone at-" + where + " kind-" + (info.kind || "pile"));
    box.dataset.zone = name;
    const label = el("span", "zone-name", info.words);
    if (info.doc) label.title = info.doc;
    box.appendChild(label);
    if (z.cards !== undefined) {
      box.appendChild(faceUp(name, z, info, box));
      if (!z.cards.length) box.classList.add("is-empty");
    } else {
      box.dataset.count = z.count;
      if (!z.count) box.classList.add("is-empty");
      box.appendChild(faceDown(name, z, where));
    }
    return box;
  }

  function faceUp(name, z, info, box) {
    const wrap = el("div", "cards");
    if (z.plays && z.plays.length) {  // a record of plays: who played which cards
      const rest = z.cards.slice();
      z.plays.forEach(([p, cs]) => {
        const play = el("div", "play");
        play.appendChild(el("span", "by", p));
        cs.forEach(c => {
          const i = rest.indexOf(c);
          if (i >= 0) rest.splice(i, 1);
          play.appendChild(card(c, name));
        });
        wrap.appendChild(play);
      });
      rest.forEach(c => wrap.appendChild(card(c, name)));
      return wrap;
    }
    z.cards.forEach(c => wrap.appendChild(card(c, name)));
    if (info.kind !== "set" && z.cards.length > PILE_SHOWN) {  // the top cards of a pile, the rest under them
      box.classList.add("stacked");
      const under = z.cards.length - PILE_SHOWN;
      Array.from(wrap.children).slice(0, under).forEach(c => c.classList.add("under"));
      const more = el("button", "more", "+" + under);
      more.type = "button";
      more.title = "show every card of this pile";
      more.addEventListener("click", () => box.classList.toggle("open"));
      box.appendChild(more);
    }
    return wrap;
  }

  function faceDown(name, z, where) {
    const wrap = el("div", "cards");
    if (where === "hand" && z.count <= 20) {  // your own hand held facing away: each card in its place
      for (let i = 0; i < z.count; i++) wrap.appendChild(cardBack());
    } else if (z.count > (z.shown || []).length) {  // the cards not seen, as one pile (those seen follow)
      const pile = el("div", "pile");
      pile.appendChild(cardBack());
      pile.appendChild(el("span", "count", String(z.count - (z.shown || []).length)));
      wrap.appendChild(pile);
    }
    // the cards seen on their own: the top of a "top public" pile, those you know, the rest
    // revealed (each card once: "shown" holds them all)
    const rest = (z.shown || []).slice();
    const take = cs => cs.filter(c => { const i = rest.indexOf(c); if (i < 0) return false; rest.splice(i, 1); return true; });
    [["top", z.top ? take([z.top]) : []], ["you know", take(z.known || [])], ["shown", rest]].forEach(([what, cs]) => {
      if (!cs.length) return;
      const g = el("div", "glimpse");
      g.appendChild(el("span", "glimpse-what", what + ":"));
      cs.forEach(c => g.appendChild(cardFace(c, name)));
      wrap.appendChild(g);
    });
    return wrap;
  }

  // ------------------------------------------------------------------ seats
  function factsOf(pairs, valueOf) {
    const box = el("div", "facts");
    pairs.forEach(([name, caption]) => {
      const v = valueOf(name);
      const type = (meta().vars[name] || {}).type;
      if (v === null || v === undefined || v === false || (Array.isArray(v) && !v.length)) return;
      const f = el("span", "fact");
      f.dataset.var = name;
      const doc = (meta().vars[name] || {}).doc;
      if (doc) f.title = doc;
      if (v === true) {
        f.classList.add("flag");
        f.textContent = caption;
      } else {
        f.appendChild(el("span", "fact-name", caption + " "));
        f.appendChild(el("b", null, valueText(v, type)));
      }
      box.appendChild(f);
    });
    return box;
  }

  function seatBox(p, ctx) {
    const {obs, you, me, seatNames, zonesOf} = ctx;  // you: the seat at the bottom; me: the viewer's (or none)
    const lay = meta().layout;
    const box = el("div", "seat" + (p === you ? " bottom" : "") + (p === me ? " you" : ""));
    box.dataset.player = p;
    const who = obs.decision ? obs.decision.who : null;
    if (!obs.terminal && who === p) box.classList.add("deciding");
    if ((obs.winners || []).includes(p)) box.classList.add("winner");
    const head = el("div", "seat-head");
    head.appendChild(el("span", "seat-name", p));
    if (p === me) head.appendChild(el("span", "agent", "you"));
    else if (seatNames && seatNames[p]) head.appendChild(el("span", "agent", seatNames[p]));
    if (!obs.terminal && who === p) head.appendChild(el("span", "turn-mark", "deciding"));
    if ((obs.winners || []).includes(p)) head.appendChild(el("span", "win-mark", "wins"));
    box.appendChild(head);
    const i = parseInt(p.slice(1), 10) - 1;
    box.appendChild(factsOf(lay.seat, v => (Array.isArray(obs.vars[v]) ? obs.vars[v][i] : undefined)));
    const front = el("div", "seat-zones");
    const held = el("div", "hand-row");
    (zonesOf.get(p) || []).forEach(([name, z]) => {
      const base = playerOf(name).base;
      if (lay.aside.includes(base)) return;
      if (lay.hand.includes(base)) {
        (p === you ? held : front).appendChild(zoneBox(name, z, p === you ? "hand" : "held"));
      } else {
        front.appendChild(zoneBox(name, z, "front"));
      }
    });
    box.appendChild(front);
    if (p === you) box.appendChild(held);
    return box;
  }

  // the other seats clockwise from yours: up your left side, along the top, down your right side
  function around(players, you) {
    const at = Math.max(0, players.indexOf(you));
    const others = players.slice(at + 1).concat(players.slice(0, at));
    const side = Math.floor((others.length + 1) / 4);
    return {left: others.slice(0, side), top: others.slice(side, others.length - side),
            right: others.slice(others.length - side)};
  }

  function renderTable(view, opts) {
    const obs = view.observation;
    const box = clear(document.getElementById("zones"));
    const lay = meta().layout;
    const players = [];
    for (let i = 1; i <= view.players; i++) players.push("P" + i);
    const you = opts.you && players.includes(opts.you) ? opts.you : null;
    const bottom = you || players[0];
    const zonesOf = new Map(), shared = [], aside = [];
    Object.entries(obs.zones).forEach(([name, z]) => {
      const {base, player} = playerOf(name);
      if (lay.aside.includes(base)) aside.push([name, z]);
      else if (player === null) shared.push([name, z]);
      if (player !== null) {
        if (!zonesOf.has(player)) zonesOf.set(player, []);
        zonesOf.get(player).push([name, z]);
      }
    });
    const ctx = {obs, you: bottom, me: you, seatNames: opts.seatNames, zonesOf};
    const seats = around(players, bottom);
    box.dataset.seats = players.length;
    [["top", "seats-top"], ["left", "seats-left"], ["right", "seats-right"]].forEach(([k, cls]) => {
      const row = el("div", cls);
      seats[k].forEach(p => row.appendChild(seatBox(p, ctx)));
      box.appendChild(row);
    });
    box.appendChild(centre(obs, shared));
    box.appendChild(seatBox(bottom, ctx));
    if (aside.length) {
      const d = el("details", "aside-zones");
      d.appendChild(el("summary", null, "Off the table (" + aside.length + " zone" + (aside.length > 1 ? "s" : "") + ")"));
      aside.forEach(([name, z]) => d.appendChild(zoneBox(name, z, "aside")));
      box.appendChild(d);
    }
  }

  function centre(obs, shared) {
    const c = el("div", "centre");
    const lay = meta().layout;
    if (lay.table.length) c.appendChild(factsOf(lay.table, v => obs.vars[v]));
    c.appendChild(stackBox(obs));
    const zones = el("div", "shared-zones");
    shared.forEach(([name, z]) => zones.appendChild(zoneBox(name, z, "centre")));
    c.appendChild(zones);
    return c;
  }

  // ------------------------------------------------------------------ the stack: effects in play
  function stackBox(obs) {
    const area = el("div", "stack-area");
    const stack = obs.stack || [];
    area.hidden = !stack.length;
    area.appendChild(el("span", "zone-name", "in play"));
    const ol = el("ol", "stack-list");
    ol.id = "stack";
    for (let i = stack.length - 1; i >= 0; i--) {  // the top first
      const e = stack[i];
      const li = el("li", "entry" + (e.cancelled ? " cancelled" : "") + (i === stack.length - 1 ? " top" : ""));
      const eff = said("effects", e.effect);
      const name = el("span", "effect", eff.words);
      if (eff.doc) name.title = eff.doc;
      li.appendChild(name);
      li.appendChild(el("span", "by", e.by + (e.target ? " → " + e.target : "")));
      if (e.cards && e.cards.length) li.appendChild(cardRow(e.cards));
      if (e.fields) {
        li.appendChild(el("span", "fields", Object.entries(e.fields).map(([k, v]) =>
          k.replace(/_/g, " ") + " " + valueText(v)).join(", ")));
      }
      if (e.cancelled) li.appendChild(el("span", "cancel-note", "cancelled"));
      ol.appendChild(li);
    }
    area.appendChild(ol);
    return area;
  }

  // ------------------------------------------------------------------ actions
  function groupName(a, obs) {
    if (a.name === "(choice)") return (obs.decision && obs.decision.prompt) || "your choice";
    if (a.name === "no response" || !a.name) return a.name || a.text.split(" ")[0];
    return said("actions", a.name).words;
  }

  function renderActions(view, title, onPick) {
    const obs = view.observation;
    const panel = clear(document.getElementById("actions-panel"));
    const texts = obs.legal_actions || [];
    const actions = (view.actions && view.actions.length === texts.length) ? view.actions
      : texts.map(t => ({text: t, name: "", cards: []}));
    playable = new Map();
    actions.forEach(a => a.cards.forEach(([zone, label]) => {
      const k = key(zone, label);
      if (!playable.has(k)) playable.set(k, []);
      playable.get(k).push(a.text);
    }));
    panel.hidden = actions.length === 0;
    if (!actions.length) return;
    panel.appendChild(el("h2", null, title + " (" + actions.length + " legal action" + (actions.length > 1 ? "s" : "") + ")"));
    const note = el("div", "card-note");
    note.id = "card-note";
    note.hidden = true;
    panel.appendChild(note);
    const filter = el("input", "filter");
    filter.type = "search";
    filter.placeholder = "filter the actions…";
    filter.id = "filter";
    if (actions.length > 12) panel.appendChild(filter);
    const list = el("div", "action-list");
    panel.appendChild(list);
    const groups = new Map();
    actions.forEach(a => {
      const k = groupName(a, obs);
      if (!groups.has(k)) groups.set(k, {name: a.name, items: []});
      groups.get(k).items.push(a);
    });
    groups.forEach((g, k) => {
      const d = el("details", "group");
      d.open = actions.length <= 30 || g.items.length <= 12;
      d.dataset.name = g.name;
      const s = el("summary", null, k + (g.items.length > 1 ? " (" + g.items.length + ")" : ""));
      const doc = g.name && meta().actions[g.name] ? meta().actions[g.name].doc : "";
      if (doc) s.title = doc;
      d.appendChild(s);
      g.items.forEach(a => {
        const b = el("button", "action", a.text);
        b.dataset.action = a.text;
        if (onPick) b.addEventListener("click", () => onPick(a.text)); else b.disabled = true;
        d.appendChild(b);
      });
      list.appendChild(d);
    });
    filter.addEventListener("input", () => applyFilter());
  }

  // the buttons shown: those of the card picked, and those the filter box lets through
  function applyFilter() {
    const list = document.querySelector("#actions-panel .action-list");
    if (!list) return;
    const f = document.getElementById("filter");
    const q = f ? f.value.trim().toLowerCase() : "";
    const mine = selected !== null ? new Set(playable.get(key(selected.zone, selected.label)) || []) : null;
    list.querySelectorAll("button.action").forEach(b => {
      b.hidden = (q !== "" && !b.dataset.action.toLowerCase().includes(q)) || (mine !== null && !mine.has(b.dataset.action));
    });
    list.querySelectorAll("details.group").forEach(d => {
      const any = Array.from(d.querySelectorAll("button.action")).some(b => !b.hidden);
      d.hidden = !any;
      if (q || mine) d.open = any;
    });
    const note = document.getElementById("card-note");
    if (note) {
      clear(note);
      note.hidden = mine === null;
      if (mine !== null) {
        const what = selected.label;
        note.appendChild(el("span", null, mine.size ? "With " + what + ": " + mine.size + " action" + (mine.size > 1 ? "s" : "")
                                                    : what + " is used by no legal action now"));
        const all = el("button", "show-all", "show all actions");
        all.type = "button";
        all.addEventListener("click", () => pick(null));
        note.appendChild(all);
      }
    }
  }

  // a card clicked (its zone and label): its face and doc beside the table, and only the actions
  // that use it; the same card again, or none, shows every action
  function pick(label, zone) {
    const same = selected !== null && label === selected.label && (zone || "") === selected.zone;
    selected = label === null || same ? null : {label, zone: zone || ""};
    document.querySelectorAll(".card.face.selected").forEach(c => c.classList.remove("selected"));
    if (selected !== null) {
      document.querySelectorAll(".card.face").forEach(c => {
        if (c.dataset.label === selected.label && (c.dataset.in || "") === selected.zone) c.classList.add("selected");
      });
    }
    const info = clear(document.getElementById("card-info"));
    info.hidden = selected === null;
    if (selected !== null) {
      const f = meta().cards[selected.label] || {props: [], doc: ""};
      info.appendChild(cardFace(selected.label));
      const words = el("div", "card-words");
      words.appendChild(el("h3", null, selected.label));
      if (f.props.length) words.appendChild(el("p", "props", f.props.map(([k, v]) => (v ? k + " " + v : k)).join(" · ")));
      if (f.doc) words.appendChild(el("p", "doc-text", f.doc));
      info.appendChild(words);
    }
    applyFilter();
  }

  function wireClicks() {
    const zones = document.getElementById("zones");
    if (!zones || zones.dataset.wired) return;
    zones.dataset.wired = "1";
    zones.addEventListener("click", ev => {
      const c = ev.target.closest(".card.face");
      if (c && zones.contains(c)) pick(c.dataset.label, c.dataset.in);
    });
  }

  // ------------------------------------------------------------------ facts (every variable)
  let varsOpen = null;  // the reader's choice, kept from one drawing to the next
  let rawOpen = false;
  function renderVars(obs) {
    const box = clear(document.getElementById("vars"));
    const entries = Object.entries(obs.vars);
    const d = el("details", "vars-box");
    d.open = varsOpen === null ? entries.length <= 25 : varsOpen;
    d.addEventListener("toggle", () => { varsOpen = d.open; });
    d.appendChild(el("summary", null, entries.length + " fact" + (entries.length === 1 ? "" : "s") + " of the game"));
    box.appendChild(d);
    const t = el("table", "vars");
    entries.forEach(([k, v]) => {
      const info = meta().vars[k] || {words: k, doc: "", per_player: false, type: ""};
      const tr = el("tr");
      tr.dataset.var = k;
      const th = el("th", null, info.words);
      if (info.doc) th.title = info.doc;
      tr.appendChild(th);
      const td = el("td");
      if (info.per_player && Array.isArray(v)) td.textContent = v.map((x, i) => "P" + (i + 1) + " " + valueText(x, info.type)).join(" · ");
      else td.textContent = valueText(v, info.type);
      tr.appendChild(td);
      t.appendChild(tr);
    });
    d.appendChild(t);
    const raw = el("details", "raw");  // the rules' own names, for those who write them
    raw.open = rawOpen;
    raw.addEventListener("toggle", () => { rawOpen = raw.open; });
    raw.appendChild(el("summary", null, "raw names and values"));
    const rt = el("table", "vars raw-vars");
    entries.forEach(([k, v]) => {
      const tr = el("tr");
      tr.appendChild(el("th", null, k));
      tr.appendChild(el("td", null, JSON.stringify(v)));
      rt.appendChild(tr);
    });
    raw.appendChild(rt);
    box.appendChild(raw);
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
    selected = null;
    renderStatus(obs, opts.you, opts.extra);
    renderActions(view, opts.actionsTitle || "Your decision", opts.onPick);
    renderTable(view, opts);
    wireClicks();
    pick(null);
    renderVars(obs);
    renderLog(view.log, !!opts.markNew);
  }

  async function getJSON(url, options) {
    const r = await fetch(url, options);
    let data;
    try { data = await r.json(); } catch (e) { data = {error: "the server answered " + r.status + " without JSON"}; }
    return {ok: r.ok, status: r.status, data};
  }

  return {el, clear, showMessage, renderView, renderLog, resetLog, getJSON, cardRow};
})();
