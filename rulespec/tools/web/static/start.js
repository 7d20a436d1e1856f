// rulespec serve: the start page.  Shows the agent of each seat in play; opens a replay file
// (read here, posted to the server as text).
"use strict";

(() => {
  const $ = s => document.getElementById(s);

  function seats() {
    const n = parseInt($("players").value, 10);
    const seat = $("seat");
    Array.from(seat.options).forEach(o => { o.hidden = o.disabled = parseInt(o.value, 10) >= n; });
    if (parseInt(seat.value, 10) >= n) seat.value = "0";
    const you = parseInt(seat.value, 10);
    document.querySelectorAll("tr.seat-row").forEach(tr => {
      const p = parseInt(tr.dataset.seat, 10);
      tr.hidden = p >= n;
      const sel = tr.querySelector("select");
      sel.hidden = sel.disabled = p === you;
      tr.querySelector(".you").hidden = p !== you;
    });
  }

  $("players").addEventListener("change", seats);
  $("seat").addEventListener("change", seats);
  seats();

  function message(text) {
    const m = $("message");
    m.textContent = text;
    m.hidden = !text;
    m.classList.add("error");
  }

  $("replay-form").addEventListener("submit", async ev => {
    ev.preventDefault();
    const form = ev.target;
    const file = $("replay-file").files[0];
    if (!file) { message("Choose a replay file first."); return; }
    const text = await file.text();
    const options = {};
    form.querySelectorAll("[name^=opt_]").forEach(f => {
      options[f.name.slice(4)] = f.type === "checkbox" ? f.checked : f.value;
    });
    const body = {name: file.name, text, players: parseInt(form.log_players.value, 10),
                  seed: parseInt(form.log_seed.value, 10) || 0, options};
    $("open-replay").disabled = true;
    try {
      const r = await fetch("/api/replays", {method: "POST", headers: {"Content-Type": "application/json"},
                                             body: JSON.stringify(body)});
      const data = await r.json();
      if (!r.ok) { message(data.error || ("error " + r.status)); return; }
      location.href = data.url;
    } catch (e) {
      message("the server cannot be reached: " + e);
    } finally {
      $("open-replay").disabled = false;
    }
  });
})();
