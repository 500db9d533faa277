// Puzzles: a position where one move is clearly best (proven by the server's solver). The
// player picks a move; the page says whether it was the best, plays the best move seed by
// seed and shows what every move was worth. A rating per game follows the results (kept in
// this browser, as an Elo rating against the puzzles' own).
import {animate} from "./animation.js";
import {drawBoard, onPlayableHole} from "./board.js";
import {gameName} from "./home.js";
import {api} from "./server.js";
import {plural, t} from "./texts.js";

const $ = (id) => document.getElementById(id);
const START_RATING = 1000;
let current = null;  // the puzzle shown: the server's view of it
let answered = false;
let place = {};

function ratingKey(game) {
  return `mancalab.puzzles.rating.${game}`;
}

export function puzzleRating(game) {
  return Number(localStorage.getItem(ratingKey(game))) || START_RATING;
}

// The rating after a result against a puzzle rated ``against`` (1 solved, 0 missed).
export function rated(rating, against, result) {
  const expected = 1 / (1 + 10 ** ((against - rating) / 400));
  return Math.round(rating + 32 * (result - expected));
}

export async function showPuzzles(game, onBack) {
  $("home").hidden = true;
  $("play").hidden = true;
  $("lesson").hidden = true;
  $("puzzle").hidden = false;
  $("puzzle-back").onclick = onBack;
  $("puzzle-next").onclick = () => nextPuzzle(game);
  onPlayableHole($("puzzle-board"), answer);
  await nextPuzzle(game);
}

async function nextPuzzle(game) {
  $("puzzle-error").textContent = "";
  try {
    current = await api(`/api/puzzles/${game}?rating=${puzzleRating(game)}` +
                        `&draw=${Math.floor(Math.random() * 1e6)}`);
  } catch (error) {
    $("puzzle-error").textContent = error.status === 404 ? t("puzzles_none", {game: gameName(game)})
      : error.message;
    return;
  }
  answered = false;
  $("puzzle-title").textContent = t("puzzle_title", {game: gameName(game)});
  $("puzzle-rating").textContent = t("puzzle_rating", {rating: puzzleRating(game),
                                                       puzzle: current.rating});
  $("puzzle-task").textContent = t(current.kind === "wipeout" ? "puzzle_task_wipeout"
                                                               : "puzzle_task",
                                   {name: "AB"[current.to_move]});
  $("puzzle-result").textContent = "";
  $("puzzle-moves").replaceChildren();
  $("puzzle-next").hidden = true;
  draw(current, new Set(current.legal));
  $("puzzle-board").querySelector(".hole.playable .cup")?.focus();
}

function draw(view, playable, best = null) {
  place = drawBoard($("puzzle-board"), view, {view: current.to_move, playable, names: ["A", "B"],
                                              reader: null, best});
}

async function answer(cell) {
  if (!current || answered) return;
  answered = true;
  let result;
  try { result = await api(`/api/puzzles/answer/${current.id}`, {move: cell}); }
  catch (error) { $("puzzle-error").textContent = error.message; answered = false; return; }
  const game = current.game;
  const before = puzzleRating(game);
  localStorage.setItem(ratingKey(game), String(rated(before, current.rating,
                                                     result.correct ? 1 : 0)));
  const played = result.moves.find((m) => m.cell === cell);
  $("puzzle-result").textContent = result.correct
    ? t("puzzle_right", {move: result.best_name, value: valueWords(result.value, game)})
    : t("puzzle_wrong", {move: played.name, value: valueWords(played.value, game),
                         best: result.best_name, best_value: valueWords(result.value, game)});
  $("puzzle-rating").textContent = t("puzzle_rating", {rating: puzzleRating(game),
                                                       puzzle: current.rating});
  $("puzzle-moves").replaceChildren(...result.moves.map((m) => {
    const item = document.createElement("li");
    item.textContent = `${m.name}: ${valueWords(m.value, game)}` +
      (m.cell === result.best ? ` (${t("mark_best")})` : "");
    return item;
  }));
  draw(current, new Set(), new Set([result.best]));
  await animate($("puzzle-board"), place, current, {...result.after, sowing: result.sowing},
                {pace: 200, hand: $("puzzle-hand"), onScore: () => {}});
  draw(result.after, new Set(), null);
  $("puzzle-next").hidden = false;
  $("puzzle-next").focus();
}

// A move's proven value in words, for the player to move in the puzzle.
function valueWords(value, game) {
  if (value === null) return t("puzzle_not_wipeout");  // Urubugu: only the winner is known
  if (value === 0) return t("puzzle_draw");
  return t(value > 0 ? "puzzle_wins" : "puzzle_loses",
           {amount: plural(`unit_${game}`, Math.abs(value))});
}
