// Puzzles: a position where one move is clearly best (proven by the server's solver), of a
// theme the player may choose. The player picks a move; a wrong one is played out and taken
// back, to try again (the answer is not given away) or to ask for the solution; the best move
// is played seed by seed with what every move was worth. A rating per game follows the first
// try of each puzzle (kept in this browser, as an Elo rating against the puzzles' own), and
// so does the streak of puzzles solved at the first try.
import {animate} from "./animation.js";
import {drawBoard, onPlayableHole} from "./board.js";
import {gameName} from "./home.js";
import {api} from "./server.js";
import {plural, sayError, t} from "./texts.js";

const $ = (id) => document.getElementById(id);
const START_RATING = 1000;
let current = null;  // the puzzle shown: the server's view of it
let answered = false;
let busy = false;    // a try is being played out
let tries = 0;       // wrong tries at the puzzle shown
let place = {};

const streakKey = (game) => `mancalab.puzzles.streak.${game}`;
const streak = (game) => Number(localStorage.getItem(streakKey(game))) || 0;

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
  $("exercise").hidden = true;
  $("puzzle").hidden = false;
  $("puzzle-back").onclick = onBack;
  $("puzzle-next").onclick = () => nextPuzzle(game);
  $("puzzle-solution").onclick = () => reveal(null);
  $("puzzle-theme").onchange = () => nextPuzzle(game);
  onPlayableHole($("puzzle-board"), tryMove);
  await fillThemes(game);
  await nextPuzzle(game);
}

// The theme menu: the themes this game's puzzles have, with how many.
async function fillThemes(game) {
  const menu = $("puzzle-theme");
  menu.replaceChildren(new Option(t("theme_any"), ""));
  const found = await api(`/api/puzzles/${game}/themes`).catch(() => ({themes: {}}));
  for (const [theme, count] of Object.entries(found.themes)) {
    menu.add(new Option(`${t(`theme_${theme}`)} (${count})`, theme));
  }
  menu.parentElement.hidden = menu.options.length < 3;  // one theme only: nothing to choose
}

async function nextPuzzle(game) {
  $("puzzle-error").textContent = "";
  try {
    const theme = $("puzzle-theme").value;
    current = await api(`/api/puzzles/${game}?rating=${puzzleRating(game)}` +
                        `&draw=${Math.floor(Math.random() * 1e6)}` +
                        (theme ? `&theme=${theme}` : ""));
  } catch (error) {
    $("puzzle-error").textContent = error.status === 404 ? t("puzzles_none", {game: gameName(game)})
      : sayError(error);
    return;
  }
  answered = false;
  tries = 0;
  $("puzzle-solution").hidden = true;
  showStreak(game);
  $("puzzle-title").textContent = t("puzzle_title", {game: gameName(game)});
  $("puzzle-rating").textContent = t("puzzle_rating", {rating: puzzleRating(game),
                                                       puzzle: current.rating});
  $("puzzle-task").textContent = t(current.kind === "best" ? "puzzle_task"
                                                            : `puzzle_task_${current.kind}`,
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

function showStreak(game) {
  const count = streak(game);
  $("puzzle-streak").textContent = count ? plural("puzzle_streak", count) : "";
}

// The first try of a puzzle counts: the rating follows it, and the streak.
function score(solved) {
  const game = current.game;
  localStorage.setItem(ratingKey(game), String(rated(puzzleRating(game), current.rating,
                                                     solved ? 1 : 0)));
  localStorage.setItem(streakKey(game), String(solved ? streak(game) + 1 : 0));
  $("puzzle-rating").textContent = t("puzzle_rating", {rating: puzzleRating(game),
                                                       puzzle: current.rating});
  showStreak(game);
}

// A move tried: the best ends the puzzle; another is played out, then taken back to try again.
async function tryMove(cell) {
  if (!current || answered || busy) return;
  busy = true;
  $("puzzle-error").textContent = "";
  let result;
  try { result = await api(`/api/puzzles/try/${current.id}`, {move: cell}); }
  catch (error) { $("puzzle-error").textContent = sayError(error); busy = false; return; }
  if (tries === 0) score(result.correct);
  if (result.correct) { busy = false; await reveal(cell); return; }
  tries += 1;
  $("puzzle-result").textContent = t("puzzle_try_again", {move: result.name});
  $("puzzle-solution").hidden = false;
  draw(current, new Set());
  await animate($("puzzle-board"), place, current, {...result.after, sowing: result.sowing},
                {pace: 120, hand: $("puzzle-hand"), onScore: () => {}});
  draw(current, new Set(current.legal));  // taken back: the puzzle again
  busy = false;
}

// The solution: every move's value, the best move played seed by seed (``cell``: the move
// that found it, or null when the player asked to see it).
async function reveal(cell) {
  if (!current || answered) return;
  answered = true;
  $("puzzle-solution").hidden = true;
  if (tries === 0 && cell === null) score(false);  // seen before any try: a miss
  let result;
  try { result = await api(`/api/puzzles/answer/${current.id}`, {move: cell ?? current.legal[0]}); }
  catch (error) { $("puzzle-error").textContent = sayError(error); answered = false; return; }
  const game = current.game;
  const found = cell !== null;
  const said = found ? (tries ? "puzzle_right_retry" : "puzzle_right") : "puzzle_solution_is";
  $("puzzle-result").textContent = [
    t(["capture", "win"].includes(current.kind) ? `${said}_${current.kind}` : said,
      {move: result.best_name, value: valueWords(result.value, game)}),
    result.themes.length ? t("puzzle_themes", {themes: result.themes.map(
      (theme) => t(`theme_${theme}`)).join(", ")}) : ""].filter(Boolean).join(" ");
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

// A move's proven value in words, for the player to move in the puzzle (a capture puzzle's:
// what the move captures this turn; a win puzzle's: whether it wins).
function valueWords(value, game) {
  if (current.kind === "win") return t(value ? "puzzle_wins_proven" : "puzzle_not_win");
  if (value === null) return t("puzzle_not_wipeout");  // Urubugu: only the winner is known
  if (current.kind === "capture") {
    return value ? t("puzzle_captures", {amount: plural(`unit_${game}`, value)})
                 : t("puzzle_captures_none");
  }
  if (value === 0) return t("puzzle_draw");
  return t(value > 0 ? "puzzle_wins" : "puzzle_loses",
           {amount: plural(`unit_${game}`, Math.abs(value))});
}
