// Lessons: a few steps per game, each a task on a real board ("play a move that makes a
// family"). The server says whether the move does it, as its rules play it; the page shows
// the sowing seed by seed and moves on. The steps done are kept in this browser.
import {animate, skip} from "./animation.js";
import {drawBoard, onPlayableHole} from "./board.js";
import {gameName} from "./home.js";
import {api} from "./server.js";
import {sayError, t} from "./texts.js";

const $ = (id) => document.getElementById(id);
let lesson = null;  // the server's lesson: {game, steps}
let at = 0;
let busy = false;
let place = {};

export async function showLesson(game, onBack) {
  $("home").hidden = true;
  $("play").hidden = true;
  $("puzzle").hidden = true;
  $("exercise").hidden = true;
  $("lesson").hidden = false;
  $("lesson-back").onclick = onBack;
  $("lesson-next").onclick = () => showStep(at + 1);
  $("lesson-again").onclick = () => showStep(at);
  $("lesson-skip").onclick = skip;
  onPlayableHole($("lesson-board"), tryMove);
  try { lesson = await api(`/api/lessons/${game}`); }
  catch (error) { $("lesson-feedback").textContent = sayError(error); return; }
  $("lesson-title").textContent = t("lesson_title", {game: gameName(game)});
  showStep(0);
}

function showStep(index) {
  const steps = lesson.steps;
  if (index >= steps.length) {
    $("lesson-step").textContent = "";
    $("lesson-text").textContent = t("lesson_done", {game: gameName(lesson.game)});
    $("lesson-feedback").textContent = "";
    $("lesson-next").hidden = $("lesson-again").hidden = true;
    $("lesson-wrap").hidden = true;
    return;
  }
  at = index;
  busy = false;
  const step = steps[index];
  $("lesson-wrap").hidden = false;
  $("lesson-step").textContent = t("lesson_step", {step: index + 1, count: steps.length});
  $("lesson-text").textContent = t(`lesson_${lesson.game}_${step.kind}`);
  $("lesson-feedback").textContent = "";
  $("lesson-next").hidden = true;
  $("lesson-again").hidden = true;
  draw(step, new Set(step.legal));
}

function draw(view, playable) {
  place = drawBoard($("lesson-board"), view, {view: lesson.steps[at].to_move, playable,
                                              names: ["A", "B"], reader: null});
}

async function tryMove(cell) {
  if (busy) return;
  busy = true;
  const step = lesson.steps[at];
  let answer;
  try { answer = await api(`/api/lessons/${lesson.game}/${at}`, {move: cell}); }
  catch (error) { $("lesson-feedback").textContent = sayError(error); busy = false; return; }
  draw(step, new Set());
  $("lesson-skip").hidden = false;
  await animate($("lesson-board"), place, step, {...answer.after, sowing: answer.sowing},
                {pace: 250, hand: $("lesson-hand"), onScore: () => {}});
  $("lesson-skip").hidden = true;
  draw(answer.after, new Set());
  if (answer.ok) {
    const said = [t("lesson_right", {move: answer.name})];
    if (answer.kind === "round_end") {  // what came after the move: the filling and the race
      said.push(t("lesson_round_end_done", {name: "AB"[answer.after.to_move]}));
    }
    $("lesson-feedback").textContent = said.join(" ");
    localStorage.setItem(`mancalab.lesson.${lesson.game}`, String(Math.max(at + 1,
      Number(localStorage.getItem(`mancalab.lesson.${lesson.game}`)) || 0)));
    $("lesson-next").hidden = false;
    $("lesson-next").focus();
  } else {
    $("lesson-feedback").textContent = t("lesson_wrong", {move: answer.name,
                                                          why: t(`lesson_not_${answer.kind}`)});
    $("lesson-again").hidden = false;
    $("lesson-again").focus();
  }
}
