// Exercises: endless practice of what a beginner must see (where a sowing ends, which move
// does what), each made and checked by the server from the rules. A landing exercise shows a
// move (ringed) and asks where its first lap's last seed lands: any hole or store is an
// answer. The others ask for a move of a kind. The move is then sown seed by seed and the
// right answers are ringed.
import {animate} from "./animation.js";
import {drawBoard, drawWay, onPlayableHole} from "./board.js";
import {gameName} from "./home.js";
import {api} from "./server.js";
import {sayError, t} from "./texts.js";

const $ = (id) => document.getElementById(id);
let current = null;  // the exercise shown
let answered = false;
let score = {right: 0, done: 0};  // this visit's answers

export async function showExercises(game, onBack) {
  for (const id of ["home", "play", "lesson", "puzzle"]) $(id).hidden = true;
  $("exercise").hidden = false;
  $("exercise-back").onclick = onBack;
  $("exercise-next").onclick = () => nextExercise(game);
  $("exercise-kind").onchange = () => nextExercise(game);
  onPlayableHole($("exercise-board"), answer);
  score = {right: 0, done: 0};
  $("exercise-title").textContent = t("exercise_title", {game: gameName(game)});
  const {kinds} = await api(`/api/exercises/${game}`);
  $("exercise-kind").replaceChildren(...kinds.map((kind) => new Option(t(`exercise_kind_${kind}`),
                                                                      kind)));
  await nextExercise(game);
}

async function nextExercise(game) {
  $("exercise-error").textContent = "";
  const kind = $("exercise-kind").value;
  const number = Math.floor(Math.random() * 1e6);
  try { current = await api(`/api/exercises/${game}/${kind}/${number}`); }
  catch (error) { $("exercise-error").textContent = sayError(error); return; }
  answered = false;
  $("exercise-task").textContent = t(`exercise_${kind}`, {move: current.move_name || ""});
  $("exercise-result").textContent = "";
  $("exercise-next").hidden = true;
  showScore();
  // a landing answer is any cell (a hole or a store); otherwise one of the legal moves
  const choices = current.move === null ? new Set(current.legal)
    : new Set(current.cells.map((_, cell) => cell));
  const place = draw(current, choices, current.move === null ? null : current.move);
  if (current.direction) drawWay($("exercise-board"), place, current.direction);
  $("exercise-board").querySelector(".hole.playable .cup")?.focus();
}

function draw(view, playable, shown = null, right = null) {
  return drawBoard($("exercise-board"), view, {view: view.to_move, playable, names: ["A", "B"],
                                               reader: null, suggested: shown, best: right});
}

function showScore() {
  $("exercise-score").textContent = score.done ? t("exercise_score", score) : "";
}

async function answer(cell) {
  if (!current || answered) return;
  answered = true;
  let result;
  try {
    result = await api(`/api/exercises/${current.game}/${current.kind}/${current.number}`,
                       {move: cell});
  } catch (error) { $("exercise-error").textContent = sayError(error); answered = false; return; }
  score = {right: score.right + (result.correct ? 1 : 0), done: score.done + 1};
  showScore();
  $("exercise-result").textContent = t(result.correct ? "exercise_right"
    : current.move === null ? "exercise_wrong_move" : "exercise_wrong_landing");
  const right = new Set(result.answers);
  const place = drawBoard($("exercise-board"), current, {view: current.to_move,
    playable: new Set(), names: ["A", "B"], reader: null, best: right});
  await animate($("exercise-board"), place, current, {...result.after, sowing: result.sowing},
                {pace: 250, hand: $("exercise-hand"), onScore: () => {}});
  draw(current, new Set(), current.move, right);  // the position again, the answers ringed
  $("exercise-next").hidden = false;
  $("exercise-next").focus();
}
