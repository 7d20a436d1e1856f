// rulespec serve: the human seat's page of a game.  It shows what the server sends for the seat
// (its observation, its log, its legal actions) and posts the action clicked with the version of
// the position it was chosen on, so that a stale click is refused instead of played.
"use strict";

(() => {
  const id = document.body.dataset.gameId;
  let view = null;
  let busy = false;

  function seatNames(v) {
    const names = {};
    v.agents.forEach((a, i) => { names["P" + (i + 1)] = a; });
    return names;
  }

  function draw(v, markNew) {
    view = v;
    const you = v.seat_name;
    const seats = v.agents.map((a, i) => "P" + (i + 1) + ": " + a).join(" · ");
    RS.renderView(v, {
      you, markNew, seatNames: seatNames(v),
      extra: "You are " + you + ". Seats: " + seats + ". Decisions so far: " + v.version,
      actionsTitle: v.observation.decision && v.observation.decision.kind === "response" ? "Your response" :
        (v.observation.decision && v.observation.decision.kind === "choice" ? "Your choice" : "Your turn"),
      onPick: v.error ? null : pick,
    });
    document.body.dataset.version = v.version;
    document.body.dataset.state = v.error ? "stopped" : (v.observation.terminal ? "over" : "playing");
    if (v.error) RS.showMessage("The game stopped: " + v.error, true);
  }

  async function pick(text) {
    if (busy || !view) return;
    busy = true;
    document.body.dataset.busy = "1";
    document.querySelectorAll("button.action").forEach(b => { b.disabled = true; });
    try {
      const r = await RS.getJSON("/api/games/" + encodeURIComponent(id) + "/act", {
        method: "POST", headers: {"Content-Type": "application/json"},
        body: JSON.stringify({action: text, version: view.version}),
      });
      if (r.ok) {
        RS.showMessage("");
        draw(r.data, true);
      } else {
        RS.showMessage(r.data.error || ("refused (" + r.status + ")"), true);
        if (r.data.view) draw(r.data.view, false);
      }
    } catch (e) {
      RS.showMessage("the server cannot be reached: " + e, true);
      document.querySelectorAll("button.action").forEach(b => { b.disabled = false; });
    } finally {
      busy = false;
      document.body.dataset.busy = "";
    }
  }

  async function load() {
    const r = await RS.getJSON("/api/games/" + encodeURIComponent(id));
    if (!r.ok) {
      RS.showMessage(r.data.error || ("error " + r.status), true);
      return;
    }
    RS.resetLog();
    draw(r.data, false);
  }

  load();
})();
