// The board as SVG: holes, stores and deposits where the game's grid puts them, every seed
// drawn as a pebble (class "seed"), the count always legible, owners by colour. A pure
// drawing of a state the server sent: it knows no rule.
import {t, plural} from "./texts.js";

const NS = "http://www.w3.org/2000/svg";
export const UNIT = 100;          // a hole's square, in SVG units
const GAP = 22;                   // between two rows of different owners
const PEBBLE_KINDS = 6;           // gradients in <defs>, one per stone colour

export function el(name, attributes = {}, parent = null) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (parent) parent.append(node);
  return node;
}

// Where each cell goes: {cell: {x, y, w, h, store}}, seen by ``view`` (its rows at the bottom).
export function layout(state, view) {
  let rows = state.grid.map((row) => row.slice());
  if (view === 1) rows = rows.reverse().map((row) => row.reverse());
  const columns = rows[0].length;
  // a store is alone in its column and spans the board's height; a row of stores only
  // (Kalah's and Gabata's middle) takes no height of its own
  const alone = (r, c) => rows.length > 1 && rows.every((other, k) => k === r || other[c] === null);
  const holesIn = rows.map((row, r) => row.some((cell, c) => cell !== null && !alone(r, c)));
  const place = {};
  const tops = [];
  let y = 0, previous = null;
  rows.forEach((row, r) => {
    if (!holesIn[r]) { tops.push(y); return; }
    if (previous !== null && ownerOfRow(state, rows[previous]) !== ownerOfRow(state, row)) y += GAP;
    tops.push(y);
    y += UNIT;
    previous = r;
  });
  const height = y;
  rows.forEach((row, r) => row.forEach((cell, c) => {
    if (cell === null) return;
    place[cell] = alone(r, c) ? {x: c * UNIT, y: 0, w: UNIT, h: height, store: true}
                              : {x: c * UNIT, y: tops[r], w: UNIT, h: UNIT, store: false};
  }));
  return {place, width: columns * UNIT, height};
}

function ownerOfRow(state, row) {
  const owners = new Set(row.filter((cell) => cell !== null).map((cell) => state.owners[cell]));
  return owners.size === 1 ? [...owners][0] : "mixed";
}

// Pebble positions in a hole: a sunflower spiral, the same for the same count, so that a
// redraw does not shuffle the stones.
function pebbleSpots(count, spot) {
  const round = !spot.store;
  // above the count's badge: the lowest pebble's edge ends where the badge begins
  const cx = spot.x + spot.w / 2, cy = spot.y + spot.h / 2 - (round ? 12 : 10);
  const rx = spot.w * 0.3, ry = round ? spot.h * 0.17 : spot.h * 0.5 - spot.w * 0.5;
  const size = Math.max(5, Math.min(15, 34 / Math.sqrt(Math.max(1, count)) + 2));
  const spots = [];
  for (let i = 0; i < count; i++) {
    const r = Math.sqrt((i + 0.5) / Math.max(count, 1));
    const angle = i * 2.399963;
    spots.push([cx + Math.cos(angle) * r * rx, cy + Math.sin(angle) * r * ry, size]);
  }
  return spots;
}

export function drawSeeds(group, cell, count, spot, prefix) {
  let seeds = group.querySelector("g.seeds");
  if (!seeds) seeds = el("g", {class: "seeds", "aria-hidden": "true"}, group);
  seeds.replaceChildren();
  prefix = prefix || group.ownerSVGElement.dataset.pebbles;
  pebbleSpots(count, spot).forEach(([x, y, r], i) => {
    const kind = (cell * 7 + i * 5) % PEBBLE_KINDS;
    el("circle", {class: "seed", cx: x.toFixed(1), cy: y.toFixed(1), r: r.toFixed(1),
                  fill: `url(#${prefix}-${kind})`}, seeds);
  });
  const label = group.querySelector("text.count");
  if (label) label.textContent = count;
}

let drawings = 0;  // each SVG its own gradient ids: a hidden one's would not paint

function defs(svg) {
  if (!svg.dataset.pebbles) svg.dataset.pebbles = `pebble${++drawings}`;
  const block = el("defs", {}, svg);
  const stones = [["#f4f1ea", "#b9b2a3"], ["#d9c7a3", "#8f7a55"], ["#9fb7c9", "#4e6a80"],
                  ["#c98f6b", "#7d4a2e"], ["#b7c89f", "#62774a"], ["#e2d3b8", "#9c8767"]];
  stones.forEach(([light, dark], k) => {
    const gradient = el("radialGradient", {id: `${svg.dataset.pebbles}-${k}`, cx: "35%", cy: "30%",
                                           r: "75%"}, block);
    el("stop", {offset: "0%", "stop-color": "#ffffff", "stop-opacity": "0.9"}, gradient);
    el("stop", {offset: "35%", "stop-color": light}, gradient);
    el("stop", {offset: "100%", "stop-color": dark}, gradient);
  });
}

// The whole board for ``state`` seen from ``options.view``; ``options``: view, playable (a
// Set of cells), last (the last move's cell), path (cells the last move sowed into), values
// ({cell: text} of the analysis), best (a Set), suggested, names (the players' names),
// reader (whose notation labels the holes: a seat, or null for each hole's owner), picture
// (a drawing that is not the board in play).
export function drawBoard(svg, state, options) {
  const {place, width, height} = layout(state, options.view);
  const pad = 12;
  const edge = 3;  // the frame's outer stroke, inside the picture: its rounded ends not clipped
  svg.setAttribute("viewBox", `${-pad - edge} ${-pad - edge} ${width + 2 * (pad + edge)} ` +
                              `${height + 2 * (pad + edge)}`);
  svg.replaceChildren();
  defs(svg);
  el("rect", {class: "board-frame", x: -pad, y: -pad, width: width + 2 * pad,
              height: height + 2 * pad, rx: 40}, svg);
  for (const [key, spot] of Object.entries(place)) {
    const cell = Number(key);
    drawHole(svg, state, cell, spot, options);
  }
  return place;
}

function drawHole(svg, state, cell, spot, options) {
  const owner = state.owners[cell];
  const classes = ["hole", `owner${owner}`, spot.store ? "store" : "pit"];
  if (options.playable.has(cell)) classes.push("playable");
  if (options.last === cell) classes.push("last");
  if (options.path && options.path.has(cell)) classes.push("path");
  if (options.suggested === cell) classes.push("suggested");
  if (options.best && options.best.has(cell)) classes.push("best");
  // a picture (a card, the rules' example) marks its holes apart from the board in play
  const group = el("g", {class: classes.join(" "),
                         [options.picture ? "data-spot" : "data-cell"]: cell});
  const inset = 6;
  // the cup is what a keyboard or a screen reader meets: the hole's name and its button
  const cup = el("rect", {class: "cup", x: spot.x + inset, y: spot.y + inset,
                          width: spot.w - 2 * inset, height: spot.h - 2 * inset,
                          rx: (spot.w - 2 * inset) / 2}, group);
  if (spot.store) drawStoreName(group, spot, options.names ? options.names[owner] : "");
  drawSeeds(group, cell, state.cells[cell], spot, svg.dataset.pebbles);
  const countY = spot.y + spot.h - 9;
  el("rect", {class: "badge", x: spot.x + spot.w / 2 - 23, y: countY - 23, width: 46,
              height: 29, rx: 14}, group);
  // the texts say what the hole's name says already: for the eye only
  el("text", {class: "count", x: spot.x + spot.w / 2, y: countY - 1, "aria-hidden": "true"},
     group).textContent =
    state.cells[cell];
  const label = holeLabel(state, cell, options);
  if (label && !spot.store) {  // in the square's corner, outside the round cup's rim
    el("text", {class: "label", x: spot.x + 1, y: spot.y + 19, "aria-hidden": "true"},
       group).textContent = label;
  }
  if (options.values && options.values[cell] !== undefined) {
    el("text", {class: "value", x: spot.x + spot.w / 2, y: spot.y + spot.h / 2 + 9,
                "aria-hidden": "true"}, group).textContent = options.values[cell];
  }
  const name = accessibleName(state, cell, spot, label, options);
  group.dataset.name = name;
  cup.setAttribute("aria-label", name);
  if (options.playable.has(cell)) {
    cup.setAttribute("tabindex", "0");
    cup.setAttribute("role", "button");
  } else {
    cup.setAttribute("role", "img");
  }
  svg.append(group);  // whole: a watcher of the board sees the hole once, not its parts
}

// The way a move sows: an arrow from ``cells[0]`` (its hole) through the others (where its
// first seeds fall, from the server's sowing), over the board; ``clearWay`` takes it off.
export function drawWay(svg, place, cells) {
  clearWay(svg);
  const centre = (cell) => [place[cell].x + place[cell].w / 2, place[cell].y + place[cell].h / 2];
  const points = cells.filter((cell) => place[cell]).map(centre);
  if (points.length < 2) return;
  const id = `${svg.dataset.pebbles}-way`;
  const head = el("marker", {id, class: "sowing-marker", viewBox: "0 0 10 10", refX: 8, refY: 5,
                             markerWidth: 5, markerHeight: 5, orient: "auto-start-reverse"},
                  svg.querySelector("defs"));
  el("path", {d: "M0,0 L10,5 L0,10 z", class: "sowing-head"}, head);
  el("polyline", {class: "sowing-way", points: points.map((p) => p.join(",")).join(" "),
                  "marker-end": `url(#${id})`, "aria-hidden": "true"}, svg);
}

export function clearWay(svg) {
  for (const node of svg.querySelectorAll(".sowing-way, .sowing-marker")) node.remove();
}

// Call ``pick(cell)`` when a playable hole of ``svg`` is clicked, or Enter or Space is
// pressed on it (its cup is a button).
export function onPlayableHole(svg, pick) {
  svg.onclick = (event) => {
    const hole = event.target.closest(".hole.playable");
    if (hole) pick(Number(hole.dataset.cell));
  };
  svg.onkeydown = (event) => {
    const hole = event.target.closest(".hole.playable");
    if (hole && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      pick(Number(hole.dataset.cell));
    }
  };
}

function holeLabel(state, cell, options) {
  const reader = options.reader === null ? state.owners[cell] : options.reader;
  return reader === null || reader === undefined ? null : state.labels[reader][cell];
}

// The owner's name written in the store, under its seeds: along a tall store (Kalah's), where
// a phone still reads it, else across the top.
function drawStoreName(group, spot, name) {
  const tall = spot.h > 1.6 * spot.w;
  const x = spot.x + spot.w / 2, y = tall ? spot.y + (spot.h - 36) / 2 : spot.y + 30;
  const text = el("text", {class: `label store-label${tall ? " along" : ""}`, x, y,
                           "aria-hidden": "true"}, group);
  if (tall) text.setAttribute("transform", `rotate(-90 ${x} ${y})`);
  text.textContent = shorten(name, tall ? Math.floor((spot.h - 60) / 15) : 7);
}

// A name within ``size`` letters: whole, else its first word when that fits, else cut.
function shorten(text, size) {
  if (text.length <= size) return text;
  const first = text.split(/\s+/)[0];
  return first.length <= size ? first : `${first.slice(0, size - 1)}…`;
}

// What a screen reader says of a hole: whose, which, how many, whether it can be played.
export function accessibleName(state, cell, spot, label, options) {
  const owner = options.names ? options.names[state.owners[cell]] : "";
  const count = plural("seeds", state.cells[cell]);
  if (spot.store) return t("store_name", {owner, count});
  const playable = options.playable.has(cell) ? t("can_play") : "";
  return [t("hole_name", {owner, label: label || cell, count}), playable,
          options.values && options.values[cell] !== undefined ? options.valueWords[cell] : ""]
    .filter(Boolean).join(", ");
}
