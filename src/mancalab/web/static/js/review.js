// A game's review: the server appraises every position (exact where its solver proves it,
// else the expert's estimate) and marks every move; this asks for it as it grows, draws the
// evaluation graph and says each move's mark in words.
import {api} from "./server.js";
import {plural, t} from "./texts.js";

const SVG = "http://www.w3.org/2000/svg";
const HEIGHT = 140, PAD = 8;
export const MARK_SIGNS = {best: "✓", good: "", inaccuracy: "?!", mistake: "?", blunder: "??"};

let timer = null;
let asked = 0;  // the review asked for last: an older one's answers are dropped

// Ask for game ``id``'s review and follow it until every position is appraised:
// ``onData(review)`` each time it grows. ``onError(error)`` if it is refused.
export async function startReview(id, token, onData, onError) {
  stopReview();
  const mine = ++asked;
  let data;
  try { data = await api(`/api/games/${id}/review`, {token}); }
  catch (error) { onError(error); return; }
  if (mine !== asked) return;
  onData(data);
  const query = token ? `?token=${encodeURIComponent(token)}` : "";
  const poll = async () => {
    if (mine !== asked || !data.running) return;  // done, at the server's limit, or failed
    try { data = await api(`/api/games/${id}/review${query}`); }
    catch (error) { onError(error); return; }
    if (mine !== asked) return;
    onData(data);
    timer = setTimeout(poll, 1500);
  };
  timer = setTimeout(poll, 1500);
}

export function stopReview() {
  asked += 1;
  clearTimeout(timer);
  timer = null;
}

function element(name, attributes = {}) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
}

// The evaluation graph: the first player's value after each move (up: the first player
// ahead), exact values as filled dots and estimates as rings, mistakes and blunders marked,
// the position shown as a line. ``onPick(ply)`` when a point of the graph is clicked.
export function drawGraph(svg, review, {ply, names, onPick}) {
  // as wide as it is shown (its height fixed by the style): dots stay round at any width
  const WIDTH = Math.max(300, Math.round(svg.clientWidth / Math.max(1, svg.clientHeight) * HEIGHT)
                         || 600);
  const values = review.values;
  const count = Math.max(1, review.positions - 1);
  const largest = Math.max(4, ...values.map((v) => Math.abs(v.value ?? 0)));
  const x = (i) => PAD + (WIDTH - 2 * PAD) * i / count;
  const y = (v) => HEIGHT / 2 - (HEIGHT / 2 - PAD) * Math.max(-1, Math.min(1, v / largest));
  svg.setAttribute("viewBox", `0 0 ${WIDTH} ${HEIGHT}`);
  svg.replaceChildren();
  svg.append(element("rect", {x: 0, y: 0, width: WIDTH, height: HEIGHT, class: "graph-back"}));
  svg.append(element("line", {x1: PAD, x2: WIDTH - PAD, y1: HEIGHT / 2, y2: HEIGHT / 2,
                              class: "graph-zero"}));
  const known = values.filter((v) => v.value !== null);
  if (known.length) {
    const line = known.map((v) => `${x(v.ply).toFixed(1)},${y(v.value).toFixed(1)}`).join(" ");
    const first = known[0], last = known[known.length - 1];
    svg.append(element("polygon", {class: "graph-area", points:
      `${x(first.ply)},${HEIGHT / 2} ${line} ${x(last.ply)},${HEIGHT / 2}`}));
    svg.append(element("polyline", {class: "graph-line", points: line}));
  }
  for (const v of known) {
    svg.append(element("circle", {cx: x(v.ply), cy: y(v.value), r: 3,
                                  class: v.exact ? "graph-exact" : "graph-estimate"}));
  }
  for (const move of review.moves) {
    if (move.mark !== "mistake" && move.mark !== "blunder") continue;
    const after = values[move.ply + 1];
    if (!after || after.value === null) continue;
    svg.append(element("circle", {cx: x(move.ply + 1), cy: y(after.value), r: 6,
                                  class: `graph-${move.mark}`}));
  }
  if (ply !== null && ply !== undefined) {
    svg.append(element("line", {x1: x(ply), x2: x(ply), y1: 0, y2: HEIGHT, class: "graph-now"}));
  }
  svg.setAttribute("aria-label", graphWords(review, names));
  svg.onclick = (event) => {
    const box = svg.getBoundingClientRect();
    const at = (event.clientX - box.left) / box.width * WIDTH;
    onPick(Math.round(Math.max(0, Math.min(count, (at - PAD) / (WIDTH - 2 * PAD) * count))));
  };
}

// The graph in words, for screen readers: who stood better at the end, and how many
// moves of each kind each player made.
function graphWords(review, names) {
  const counts = [{}, {}];
  for (const move of review.moves) {
    if (move.mark) counts[move.mover][move.mark] = (counts[move.mover][move.mark] || 0) + 1;
  }
  const parts = names.map((name, seat) => t("review_counts", {name,
    inaccuracy: counts[seat].inaccuracy || 0, mistake: counts[seat].mistake || 0,
    blunder: counts[seat].blunder || 0}));
  return [t("review_graph", {name: names[0]}), ...parts].join(" ");
}

// What move ``ply`` (0-based) did, in words: its mark, what it gave away and the best move,
// exact or estimated.
export function moveWords(review, ply, game, name) {
  const move = review && review.moves[ply];
  if (!move || !move.mark) return "";
  const source = t(move.exact ? "review_exact" : "review_estimate");
  const said = [t("review_move", {name, move: move.name, mark: t(`mark_${move.mark}`)})];
  if (move.lost) said.push(t("review_lost", {lost: plural(`unit_${game}`, round(move.lost))}));
  if (move.mark !== "best" && move.best_moves.length) {
    said.push(t("review_best", {best: move.best_moves.join(", ")}));
  }
  return `${said.join("; ")} (${source})`;
}

// A position's value in words: who is ahead (the first player's value), exact or estimated.
export function positionWords(review, ply, game, names) {
  const entry = review && review.values[ply];
  if (!entry || entry.value === null) return "";
  const value = round(entry.value);
  if (Math.abs(value) < 0.5) return t(entry.exact ? "review_even_exact" : "review_even");
  const amount = plural(`unit_${game}`, round(Math.abs(value)));
  return t(entry.exact ? "review_ahead_exact" : "review_ahead",
           {name: names[value > 0 ? 0 : 1], amount});
}

function round(value) {
  return Math.round(value * 10) / 10;
}
