// "Where will it land?": pointing at a playable hole (hover, keyboard focus, or a long press on
// a touch screen) marks the hole where the move's last seed lands and the holes it captures
// from, and says what it wins. The server works it out with the rules' own kernels
// (GET /api/games/ID/previews), once a position; the page knows no rule.
import {clearWay, drawWay} from "./board.js";
import {api} from "./server.js";
import {plural, t} from "./texts.js";

const PRESS_MS = 450;  // a touch held this long previews instead of playing
const STORED = "mancalab.previews";

let asked = null;     // "id:ply" of the previews asked for last
let answer = null;    // Promise of {cell: preview} for ``asked``
let pressed = false;  // a long press just previewed: the tap that ends it plays nothing

export function previewsOn() {
  return localStorage.getItem(STORED) !== "off";
}

// The switch in the play screen's options: on unless turned off, remembered.
export function wireSwitch(box, changed) {
  box.checked = previewsOn();
  box.onchange = () => {
    localStorage.setItem(STORED, box.checked ? "on" : "off");
    changed();
  };
}

// The previews of ``state``'s position (a Map by cell), fetched once a position.
function previewsOf(state, token) {
  const key = `${state.id}:${state.ply}`;
  if (key !== asked) {
    asked = key;
    const query = `?token=${encodeURIComponent(token)}`;
    answer = api(`/api/games/${state.id}/previews${query}`)
      .then((data) => (data.ply === state.ply
        ? new Map(data.moves.map((entry) => [entry.cell, entry])) : new Map()))
      .catch(() => new Map());
  }
  return answer;
}

// Mark on ``svg`` (drawn at ``place``) what the move of ``hole`` would do, with an arrow the
// way it sows; its words, or "" when there is none.
export async function preview(svg, place, hole, state, token, describeCell) {
  clear(svg);
  const cell = Number(hole.dataset.cell);
  const entry = (await previewsOf(state, token)).get(cell);
  if (!entry || !hole.isConnected) return "";
  if (entry.way) drawWay(svg, place, entry.way);
  if (entry.lands !== null) mark(svg, entry.lands, "lands");
  for (const taken of entry.captured || []) mark(svg, taken, "taken");
  return words(entry, state, describeCell);
}

export function clear(svg) {
  clearWay(svg);
  for (const node of svg.querySelectorAll(".hole.lands, .hole.taken")) {
    node.classList.remove("lands", "taken");
  }
}

function mark(svg, cell, kind) {
  const node = svg.querySelector(`.hole[data-cell='${cell}']`);
  if (node) node.classList.add(kind);
}

function words(entry, state, describeCell) {
  if (entry.lands === null) return t("preview_long");
  const parts = [t("preview_lands", {hole: describeCell(entry.lands)})];
  if (entry.laps > 1) parts.push(plural("preview_laps", entry.laps));
  if (entry.gain > 0) {
    parts.push(t("preview_wins", {amount: plural(`unit_${state.game}`, entry.gain)}));
  }
  if (entry.ends) parts.push(t("preview_ends"));
  else if (entry.again) parts.push(t("preview_again"));
  return parts.join(" · ");
}

// A touch held on a playable hole previews it (``show(hole)``) and the tap that ends the press
// is not a move; a short tap plays as before.
export function wireLongPress(svg, show) {
  let timer = null;
  const stop = () => { clearTimeout(timer); timer = null; };
  svg.addEventListener("pointerdown", (event) => {
    const hole = event.target.closest(".hole.playable");
    if (!hole || event.pointerType === "mouse") return;
    stop();
    timer = setTimeout(() => { pressed = true; show(hole); }, PRESS_MS);
  });
  for (const name of ["pointerup", "pointercancel", "pointerleave"]) {
    svg.addEventListener(name, stop);
  }
  svg.addEventListener("contextmenu", (event) => {  // a held touch opens no menu over the board
    if (event.target.closest(".hole.playable")) event.preventDefault();
  });
}

// Whether the click now ending a long press is to be ignored (and forget the press).
export function swallowPress() {
  const was = pressed;
  pressed = false;
  return was;
}
