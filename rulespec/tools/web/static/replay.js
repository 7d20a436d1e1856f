// rulespec serve: a replay, stepped forward and back, seen by everyone (omniscient) or by one seat.
"use strict";

(() => {
  const id = document.body.dataset.replayId;
  const $ = s => document.getElementById(s);
  let step = 0, steps = 0, viewer = "all", loading = false, wanted = null;

  function readHash() {
    const h = new URLSearchParams(location.hash.slice(1));
    if (h.has("step")) step = Math.max(0, parseInt(h.get("step"), 10) || 0);
    if (h.has("view")) viewer = h.get("view");
    $("viewer").value = viewer;
  }

  function head(v) {
    const box = RS.clear($("replay-head"));
    const opts = Object.entries(v.options).map(([k, x]) => k + "=" + x).join(", ") || "defaults";
    box.appendChild(RS.el("div", "decision", v.source + " (" + v.format + "): " + v.game + ", " + v.players +
      " players, seed " + v.seed + ", options " + opts + ", " + v.steps + " decisions"));
    if (v.recorded) {
      box.appendChild(RS.el("div", "extra", "Recorded failure: " + v.recorded.check + (v.recorded.message ? ": " + v.recorded.message : "")));
    }
    if (v.note) box.appendChild(RS.el("div", "extra note", v.note));
  }

  function draw(v) {
    steps = v.steps;
    step = v.step;
    head(v);
    $("slider").max = steps;
    $("slider").value = step;
    $("step-label").textContent = "decision " + step + " of " + steps;
    $("step-label").dataset.step = step;
    document.body.dataset.step = step;
    $("first").disabled = $("back").disabled = step === 0;
    $("forward").disabled = $("last").disabled = step === steps;
    const you = v.omniscient ? null : "P" + (v.viewer + 1);
    $("view-note").textContent = v.omniscient
      ? "Omniscient view: every card is shown, also those no player could see at this point (a replay is not a game: nothing here is secret)."
      : you + "'s view: only what " + you + " could see at this point, and " + you + "'s log.";
    $("view-note").className = "view-note " + (v.omniscient ? "omniscient" : "seat");
    let next = "";
    if (v.next) next = "Next decision: " + v.next.who + (v.next.action !== null ? ": " + v.next.action : " (not shown in this view)");
    else next = "The end of the replay.";
    RS.resetLog();
    RS.renderView(v, {you, extra: next, actionsTitle: "Legal actions here (the replay takes the next decision)"});
    history.replaceState(null, "", "#step=" + step + "&view=" + viewer);
  }

  async function go(k) {
    wanted = Math.max(0, Math.min(k, steps || k));
    if (loading) return;
    loading = true;
    document.body.dataset.busy = "1";
    try {
      while (wanted !== null) {
        const target = wanted;
        wanted = null;
        const r = await RS.getJSON("/api/replays/" + encodeURIComponent(id) + "?step=" + target + "&view=" + encodeURIComponent(viewer));
        if (!r.ok) { RS.showMessage(r.data.error || ("error " + r.status), true); break; }
        RS.showMessage("");
        draw(r.data);
      }
    } finally {
      loading = false;
      document.body.dataset.busy = "";
    }
  }

  $("first").addEventListener("click", () => go(0));
  $("back").addEventListener("click", () => go(step - 1));
  $("forward").addEventListener("click", () => go(step + 1));
  $("last").addEventListener("click", () => go(steps));
  $("slider").addEventListener("input", () => go(parseInt($("slider").value, 10)));
  $("viewer").addEventListener("change", () => { viewer = $("viewer").value; go(step); });
  document.addEventListener("keydown", e => {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    if (e.key === "ArrowRight") go(step + 1);
    else if (e.key === "ArrowLeft") go(step - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(steps);
  });

  readHash();
  go(step);
})();
