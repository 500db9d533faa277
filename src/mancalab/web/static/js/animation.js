// A move shown as the rules played it (state.sowing from the server: lift, drop, capture,
// bank, set; each with the cell's new count and the seeds in hand), one step after another:
// the pebbles leave the lifted hole, drop one by one, captured heaps empty. The speed menu
// sets the time a step (a long relay goes faster: a move takes at most MAX_MOVE_MS, and a
// move with more queued behind it, as a turn of relays and extra turns is, runs at full
// speed so that the turn's last move is the one shown at the pace); Skip ends it. A move too
// long to send step by step changes the holes at once, and so does every move where the
// visitor asked for less motion (the system's reduce-motion setting).
import {drawSeeds, el} from "./board.js";
import {t} from "./texts.js";

const MAX_MOVE_MS = 4000;
const RUSH_MS = 8;  // a step's time while more moves wait to be shown
let running = null;  // the animation shown now: {timer, finish}
const STILL = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;

export function animating() {
  return running !== null;
}

export function skip() {
  if (!running) return;
  clearTimeout(running.timer);
  running.finish();
}

// ``place``: where each cell is drawn (board.layout); ``onScore(seat, count)``: a count kept
// beside the board changed (Gebeta's families); ``hand``: the element that says the seeds in
// hand. Resolves when the move has been shown.
export function animate(svg, place, before, after, {pace, hand, onScore, rush = () => false}) {
  if (!pace || STILL?.matches) return Promise.resolve();
  skip();  // one animation at a time: one still running ends where it was going
  const steps = after.sowing || changedHoles(before, after);
  const delay = Math.max(RUSH_MS, Math.min(pace, MAX_MOVE_MS / Math.max(1, steps.length)));
  document.body.classList.add("animating");
  const marker = el("circle", {class: "hand", r: 16, cx: -100, cy: -100}, svg);
  const job = {timer: null, finish: null};
  return new Promise((resolve) => {
    let k = 0, lit = null;
    const tick = () => {
      if (lit) lit.classList.remove("step-lift", "step-drop", "step-capture", "step-bank", "step-set");
      if (k >= steps.length) { finish(); return; }
      const [kind, cell, count, inHand] = steps[k++];
      lit = svg.querySelector(`.hole[data-cell="${cell}"], .hole[data-spot="${cell}"]`);
      if (lit && place[cell]) {
        drawSeeds(lit, cell, count, place[cell]);
        lit.classList.add(`step-${kind}`);
        const spot = place[cell];
        marker.setAttribute("cx", spot.x + spot.w / 2);
        marker.setAttribute("cy", spot.y + spot.h / 2);
      } else if (kind === "bank") {
        onScore(after.owners[cell], count);
      }
      marker.classList.toggle("empty", !(inHand > 0));
      hand.textContent = inHand > 0 ? t("in_hand", {count: inHand}) : "";
      job.timer = setTimeout(tick, rush() ? RUSH_MS : delay);
    };
    const finish = () => {
      clearTimeout(job.timer);
      if (running === job) running = null;
      marker.remove();
      hand.textContent = "";
      document.body.classList.remove("animating");
      resolve();
    };
    job.finish = finish;
    job.timer = setTimeout(tick, 0);
    running = job;
  });
}

function changedHoles(before, after) {
  const steps = [];
  after.cells.forEach((count, cell) => {
    if (count !== before.cells[cell]) steps.push(["set", cell, count, 0]);
  });
  return steps;
}

// A move's steps played backwards, to take it back on the board: from the last step to the
// first, each cell going back to the count it had before the step (``before``: the position
// before the move; ``steps``: its sowing).
export function backwards(before, steps) {
  const shown = [];
  steps.forEach(([kind, cell], i) => {
    const earlier = steps.slice(0, i).reverse().find((step) => step[1] === cell);
    const count = earlier ? earlier[2] : before.cells[cell];
    const hand = i ? steps[i - 1][3] : 0;
    shown.push([kind, cell, count, hand]);
  });
  return shown.reverse();
}
