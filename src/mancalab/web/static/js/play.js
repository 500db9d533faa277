// The play screen: the board, the players, what is going on, the controls, the requests
// between players, the end of the game. Every rule is the server's: the page draws the
// states it is sent and sends the moves the player makes.
import {animate, backwards, skip} from "./animation.js";
import {drawBoard, onPlayableHole} from "./board.js";
import {fillLevels, gameName, levelName} from "./home.js";
import {api, live} from "./server.js";
import * as landing from "./landing.js";
import {plural, sayError, t} from "./texts.js";
import {remember} from "./mine.js";
import {editPosition, positionLink} from "./position.js";
import {MARK_SIGNS, drawGraph, moveWords as reviewMoveWords, positionWords, startReview,
        stopReview} from "./review.js";
import {sound} from "./sound.js";

const $ = (id) => document.getElementById(id);
let catalogue = null;
let game = null;          // the last state shown
let gameId = null;
let token = null;
let connection = null;
let flipped = false;
let place = {};           // where each cell is drawn
let analysing = false;
let endShown = null;      // the game whose end dialog was shown
let announcedPly = null;  // the last move announced to screen readers
const analysedPlies = {}; // "id:ply" -> the exact values of that position
let reviewing = null;     // the ply shown while a game is reviewed, else null
let reviewData = null;    // the server's review of the game (values and marks), once asked

let onCreated = null;     // opens a game the page created (main.js)
let editWhenShown = false; // the analysis board: the position editor opens with the game

// Open game ``id``; ``analyse``: with its exact values shown, ``edit``: with the position
// editor open (the analysis board); ``opened(created)`` opens a game made from this one.
export function openGame(theCatalogue, id, seatToken, {analyse = false, edit = false,
                                                       opened = null} = {}) {
  catalogue = theCatalogue;
  onCreated = opened || onCreated;
  editWhenShown = edit;
  gameId = id;
  // a game opened over another's end (an arena's next game): that end's dialog goes
  if ($("end-dialog").open) $("end-dialog").close();
  token = seatToken || localStorage.getItem(`mancalab.token.${id}`);
  if (token) localStorage.setItem(`mancalab.token.${id}`, token);
  $("home").hidden = true;
  $("play").hidden = false;
  $("download").href = `/api/games/${id}/record`;
  fillLevels($("level"));
  wireControls();
  if (analyse) $("analysis").checked = true;
  if (connection) connection.close();
  game = null;
  reviewing = wanted = null;
  reviewData = null;
  stopReview();
  $("review").hidden = true;
  $("review-panel").hidden = true;
  preparedGame = null;
  connection = live(id, token, {
    onState: receive,
    onError: showError,
    onLine: (up) => {
      $("status").classList.toggle("offline", !up);
      if (!up) $("status").textContent = t("reconnecting");
    },
  });
}

export function rerender() {
  if (game) render(game);
  if (catalogue) {
    const level = $("level").value;
    fillLevels($("level"));
    $("level").value = level;
  }
}

function showError(error) {
  $("message").textContent = sayError(error);
}

// States are shown in the order they arrive: a move's animation ends before the next begins.
let shown = Promise.resolve();
let waiting = 0;  // states received and not shown yet
function receive(state) {
  waiting += 1;
  shown = shown.then(() => show(state)).catch((error) => showError(error))
    .finally(() => { waiting -= 1; });
}

async function show(state) {
  const before = game;
  game = state;
  clockSeen = state.clock ? {clock: state.clock, at: performance.now()} : null;
  if (reviewing !== null) {  // the live game goes on underneath: its list and status only
    drawMoves(state);
    drawStatus(state);
    return;
  }
  if (before && before.id === state.id && before.started && state.started &&
      state.ply === before.ply + 1) {
    // the player whose turn it now is may move at once: a tap ends the animation (it runs
    // on their clock, which the server started when the move arrived)
    render({...state, cells: before.cells, score: before.score,
            legal: mayMove(state) ? state.legal : [], suggestion: null, animatingMove: true});
    sound("sow");
    await animate($("board"), place, before, state, {
      pace: Number($("speed").value), hand: $("hand"), rush: () => waiting > 1,
      onScore: (seat, count) => {
        const score = document.querySelector(`.score[data-seat="${seat}"]`);
        if (score) {
          score.textContent = plural(`score_${state.game}`, count);
          score.classList.add("scored");
        }
      }});
  }
  if (game === state) {
    render(state);
    playPremove(state);
  }
  if (editWhenShown && state.started) {
    editWhenShown = false;
    setUpPosition();
  }
}

function setUpPosition() {
  if (!game || !game.started || !onCreated) return;
  editPosition(game, names(game), (created) => onCreated(created, {analyse: true}));
}

// ----- drawing ----------------------------------------------------------------------------
function viewer(state) {
  const own = state.seat === null || state.local ? 0 : state.seat;
  return flipped ? 1 - own : own;
}

function mayMove(state) {
  if (!state.started || state.result || state.thinking || state.seat === null) return false;
  if (state.animatingMove) return false;
  if (state.local) return true;
  if (state.mode === "computer") return state.to_move !== state.bot_seat || state.suggestion !== null;
  return state.to_move === state.seat;
}

function names(state) {
  return state.names.map((name, seat) =>
    state.mode === "computer" && seat === state.bot_seat ? t("computer") : name);
}

let hintAt = null;  // the ply a hint shown below the board was for

function render(state) {
  if (hintAt !== null && (state.ply !== hintAt || state.result)) {  // a stale hint goes
    $("hover-info").textContent = "";
    hintAt = null;
  }
  const exact = analysed(state);
  // during a move's animation, the holes of the player whose turn it now is take a tap;
  // on the opponent's turn, the player's own holes take one premove
  const premoving = mayPremove(state);
  const legal = new Set(mayMove(state) || (state.animatingMove && mayMove(
    {...state, animatingMove: false})) ? state.legal : premoving ? ownHoles(state) : []);
  const values = {}, valueWords = {};
  if (exact && mayMove(state)) {
    for (const entry of exact.moves) {
      values[entry.cell] = entry.value === null ? "?" : signed(entry.value);
      valueWords[entry.cell] = moveWords(entry);
    }
  }
  const last = state.moves && state.moves.length ? state.moves[state.moves.length - 1].move : null;
  const path = new Set((state.sowing || []).filter((s) => s[0] === "drop").map((s) => s[1]));
  place = drawBoard($("board"), state, {
    view: viewer(state), playable: legal, last, path: state.animatingMove ? null : path,
    values, valueWords, best: exact && mayMove(state) ? new Set(exact.best_cells) : null,
    suggested: state.suggestion, names: names(state),
    reader: state.local || state.seat === null ? null : viewer(state)});
  $("board").setAttribute("aria-label", t("board_name", {mover: names(state)[state.to_move]}));
  $("board").classList.toggle("premoving", premoving);
  if (premove !== null) {
    $("board").querySelector(`.hole[data-cell='${premove}']`)?.classList.add("queued");
  }
  drawPlayers(state);
  drawStatus(state);
  drawRequest(state);
  drawWaiting(state);
  drawMoves(state);
  drawSetup(state);
  drawControls(state);
  drawRematch(state);
  drawClaim(state);
  tellYourMove(state);
  drawLosses(state);
  announce(state);
  if (!state.animatingMove) {
    requestAnalysis(state);
    showEnd(state);
  }
}

const signed = (n) => (n > 0 ? `+${n}` : String(n));

// Whether pointing at a hole shows what its move would do: a helper, as the hint.
function previewing(state) {
  return Boolean(state) && state.helpers && mayMove(state) && landing.previewsOn();
}

// A cell in words for a preview ("B's hole 3", "A's store"), labelled as the board labels it.
function cellWords(cell) {
  const owner = names(game)[game.owners[cell]];
  const reader = game.local || game.seat === null ? game.owners[cell] : viewer(game);
  const label = game.labels[reader] && game.labels[reader][cell];
  return place[cell] && place[cell].store || !label ? t("preview_store", {owner})
    : t("preview_hole", {owner, label});
}

function drawPlayers(state) {
  const view = viewer(state);
  const shownNames = names(state);
  const bar = (element, seat) => {
    element.className = `player-bar seat${seat}` +
      (state.started && !state.result && state.to_move === seat ? " turn" : "");
    element.replaceChildren();
    const dot = Object.assign(document.createElement("span"), {className: "dot"});
    const name = Object.assign(document.createElement("span"), {className: "name",
                                                                textContent: shownNames[seat]});
    // who plays: the part of the bar that gives way (a long name is cut short), so that
    // the clock and the score keep their line on a phone
    const who = Object.assign(document.createElement("span"), {className: "who"});
    who.append(dot, name);
    if (state.bots && state.bots[seat]) {  // a BOT account: a program plays this seat
      who.append(Object.assign(document.createElement("span"), {className: "bot-tag",
                                                                 textContent: t("bot_tag")}));
    }
    element.append(who);
    if (state.ratings && state.ratings[seat]) {
      who.append(Object.assign(document.createElement("span"), {
        className: "rating", textContent: state.ratings[seat]}));
    }
    if (state.mode === "online" && state.present) {
      const word = state.present[seat] ? "present_here"
        : state.came && state.came[seat] ? "present_left" : "present_away";
      const presence = Object.assign(document.createElement("span"), {className: "presence",
        textContent: `(${t(word)})`});
      who.append(presence);
    }
    const score = Object.assign(document.createElement("span"), {className: "score",
      textContent: plural(`score_${state.game}`, state.score[seat])});
    score.dataset.seat = seat;
    element.append(score);
    if (state.clock) {
      const clock = Object.assign(document.createElement("span"), {className: "clock"});
      clock.dataset.seat = seat;
      clock.setAttribute("role", "timer");
      clock.setAttribute("aria-label", t("time_left", {name: shownNames[seat]}));
      element.append(clock);
    }
  };
  bar($("player-top"), 1 - view);
  bar($("player-bottom"), view);
  tickClocks();
}

// The clocks as the server keeps them, counted down here between its messages (the server
// alone decides when time runs out).
let clockSeen = null;

function timeText(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  if (whole >= 86400) return plural("days_left", Math.floor(whole / 86400));
  const hours = Math.floor(whole / 3600), minutes = Math.floor((whole % 3600) / 60);
  const rest = String(whole % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}

function tickClocks() {
  if (!clockSeen) return;
  const {clock, at} = clockSeen;
  for (const element of document.querySelectorAll(".player-bar .clock")) {
    const seat = Number(element.dataset.seat);
    const spent = clock.running === seat ? (performance.now() - at) / 1000 : 0;
    const left = clock.remaining[seat] - spent;
    element.textContent = timeText(left);
    element.classList.toggle("running", clock.running === seat);
    element.classList.toggle("low", left < 20);
  }
}

setInterval(tickClocks, 200);

// The time left for a first move (the server aborts the game when it is over).
let firstMoveSeen = null;

function tickFirstMove() {
  const note = $("first-move");
  note.hidden = !firstMoveSeen;
  if (note.hidden) return;
  const left = firstMoveSeen.left - (performance.now() - firstMoveSeen.at) / 1000;
  note.textContent = t("first_move_left", {seconds: Math.max(0, Math.ceil(left))});
}

setInterval(tickFirstMove, 500);

function drawStatus(state) {
  const shownNames = names(state);
  let status;
  if (!state.started) status = t("waiting_setup", {name: waitingFor(state)});
  else if (state.result) status = resultTitle(state);
  else if (state.error) status = t("computer_failed", {reason: state.error});
  else if (state.thinking || (state.animatingMove && state.mode === "computer" &&
                              state.to_move === state.bot_seat)) {
    status = t(state.preparing ? "thinking_first" : "thinking");
  } else if (state.suggestion !== null && state.suggestion !== undefined) {
    status = t("suggested", {move: state.suggestion_name});
  } else if (friendAway(state)) {  // said once: by the banner with the invite link if shown
    status = inviting(state) ? "" : t("waiting_friend");
  }
  else if (state.seat !== null && !state.local && state.to_move === state.seat &&
             !state.animatingMove) status = t("your_turn");
  else status = t("to_move", {name: shownNames[state.to_move]});
  const race = raceWords(state);
  if (race) status += ` · ${race}`;
  if (state.seat === null) status += ` · ${t("spectator")}`;
  $("status").textContent = status;
}

// Before the first move of a game that begins with a race (3-row Gabata): who won it, since
// the board shown is already the one after it
function raceWords(state) {
  const race = catalogue.games[state.game]?.race;
  if (!race || !state.started || state.ply !== 0 || state.result) return "";
  const chosen = state.options?.[race.option] ??
    catalogue.games[state.game].options[race.option]?.default;
  return chosen === race.none ? "" : t("race_won", {name: names(state)[state.to_move]});
}

function waitingFor(state) {
  const seat = state.setup_done.findIndex((done) => !done);
  return names(state)[seat < 0 ? 0 : seat];
}

function resultTitle(state) {
  if (state.result.termination === "abort") return t("end_title_abort");
  return winnerText(state) +
    (state.result.termination ? ` · ${t("ended_" + state.result.termination)}` : "");
}

function winnerText(state) {
  if (state.result.kind !== "win") return t(state.result.kind === "draw" ? "draw" : "timeout");
  const mine = state.seat !== null && !state.local && state.result.winner === state.seat;
  return mine ? t("you_win") : t("wins", {name: names(state)[state.result.winner]});
}

// The other player's request (take back, end) with Accept and Decline; one's own, waiting.
function drawRequest(state) {
  const box = $("request");
  const other = (seat) => names(state)[seat];
  let text = null, mine = false;
  for (const [field, asked, waiting] of [["undo_request", "undo_asked", "undo_waiting"],
                                         ["end_request", "end_asked", "end_waiting"],
                                         ["draw_request", "draw_asked", "draw_waiting"]]) {
    const seat = state[field];
    if (seat === null || seat === undefined || state.result || state.seat === null) continue;
    mine = seat === state.seat;
    text = mine ? t(waiting, {name: other(1 - seat)}) : t(asked, {name: other(seat)});
    box.dataset.kind = field.replace("_request", "");
    break;
  }
  const refused = state.declined;  // the other player said no to what this one asked
  if (text === null && refused && state.seat !== null && refused.by !== state.seat) {
    text = t(`${refused.kind}_declined`, {name: other(refused.by)});
    mine = true;  // nothing to answer
  }
  box.hidden = text === null;
  $("request-text").textContent = text || "";
  $("request-accept").hidden = mine;
  $("request-decline").hidden = mine;
}

// Online, before the first move, while the friend has not opened the game yet.
function friendAway(state) {
  const other = state.seat === null ? null : 1 - state.seat;
  return state.mode === "online" && other !== null && Boolean(state.present) &&
    !state.present[other] && state.ply === 0 && !state.result;
}

function inviting(state) {
  return Boolean(localStorage.getItem(`mancalab.invite.${state.id}`));
}

function drawWaiting(state) {
  const invite = localStorage.getItem(`mancalab.invite.${state.id}`);
  $("waiting").hidden = !(friendAway(state) && invite);
  $("invite-link").value = invite || "";
  $("share-invite").hidden = !navigator.share;
}

function drawMoves(state) {
  $("move-list").replaceChildren(...state.moves.map((m, ply) => {
    const item = document.createElement("li");
    const button = Object.assign(document.createElement("button"), {type: "button",
      className: "move", textContent: `${names(state)[m.seat]}: ${m.name}`});
    const judged = reviewData && reviewData.moves[ply];
    if (judged && judged.mark) {
      button.classList.add(`mark-${judged.mark}`);
      const sign = Object.assign(document.createElement("span"), {className: "mark",
        textContent: MARK_SIGNS[judged.mark]});
      sign.setAttribute("aria-hidden", "true");
      button.append(sign);
      button.setAttribute("aria-label", `${button.firstChild.textContent}: ${t(`mark_${judged.mark}`)}`);
    }
    if (reviewing === ply + 1) button.setAttribute("aria-current", "step");
    button.onclick = () => review(ply + 1);
    item.append(button);
    return item;
  }));
  $("move-list").title = t("review_hint");
}

// ----- review: any position of the game, stepped through move by move --------------------
let wanted = null;  // the position asked for last: keys pressed quickly step from it

function step(by) {
  review((wanted ?? reviewing ?? game.moves.length) + by);
}

async function review(ply) {
  if (!game || !game.started) return;
  const count = game.moves.length;
  ply = Math.max(0, Math.min(ply, count));
  if (ply === count && reviewing !== null && !game.result) { endReview(); return; }
  wanted = ply;
  $("review-line-text").textContent = "";
  const answer = await api(`/api/games/${gameId}/positions/${ply}`).catch(showError);
  if (!answer || wanted !== ply) return;  // a later step was asked for meanwhile
  const previous = reviewing;
  reviewing = ply;
  const view = {...game, ...answer.state, moves: game.moves, ply, sowing: answer.sowing};
  const options = {view: viewer(game), playable: new Set(), names: names(game),
                   last: ply ? game.moves[ply - 1].move : null,
                   reader: game.local || game.seat === null ? null : viewer(game)};
  const pace = {pace: Number($("speed").value), hand: $("hand"), onScore: () => {}};
  if (previous !== null && ply === previous + 1 && answer.sowing) {
    const before = await api(`/api/games/${gameId}/positions/${previous}`).catch(() => null);
    if (before) {
      place = drawBoard($("board"), {...view, ...before.state}, options);
      await animate($("board"), place, {...view, ...before.state}, view, pace);
      if (wanted !== ply) return;
    }
  } else if (previous !== null && ply === previous - 1) {  // the move taken back
    const after = await api(`/api/games/${gameId}/positions/${previous}`).catch(() => null);
    if (after && after.sowing) {
      const shown = {...view, ...after.state};
      place = drawBoard($("board"), shown, options);
      await animate($("board"), place, shown,
                    {...view, sowing: backwards(answer.state, after.sowing)}, pace);
      if (wanted !== ply) return;
    }
  }
  const judged = reviewData && reviewData.moves[ply];
  place = drawBoard($("board"), view, {...options,
    best: judged && judged.best_cells.length ? new Set(judged.best_cells) : null,
    path: new Set((answer.sowing || []).filter((step) => step[0] === "drop").map((step) => step[1]))});
  drawPlayers(view);
  $("review").hidden = false;
  $("review-text").textContent = ply ? t("review_at", {ply, count}) : t("review_start");
  $("review-words").textContent = [
    ply ? reviewMoveWords(reviewData, ply - 1, game.game, names(game)[game.moves[ply - 1].seat]) : "",
    positionWords(reviewData, ply, game.game, names(game)),
    judged && judged.best_moves.length ? t("review_best_here", {best: judged.best_moves.join(", ")}) : "",
  ].filter(Boolean).join(" · ");
  drawMoves(game);
  drawReview();
}

// ----- the review's evaluation graph and progress -------------------------------------------
function mayReview(state) {
  return Boolean(state.started) && state.ply > 0 &&
    (Boolean(state.result) || (state.seat !== null && state.helpers));
}

function askReview() {
  if (!game || !mayReview(game)) return;
  $("review-panel").hidden = false;
  $("review-progress").textContent = t("review_waiting");
  startReview(gameId, token, (data) => {
    reviewData = data;
    drawReview();
    drawMoves(game);
    if (reviewing === null) review(0);
  }, (error) => { showError(error); $("review-panel").hidden = true; });
}

function drawReview() {
  if (!reviewData || !game) return;
  $("review-panel").hidden = false;
  $("review-progress").textContent = reviewProgress(reviewData);
  drawGraph($("review-graph"), reviewData, {ply: reviewing, names: names(game),
                                            onPick: (ply) => review(ply)});
}

// How far the review is: running, done, stopped at the server's limit, or failed (and why)
function reviewProgress(data) {
  if (data.appraised >= data.positions) return t("review_done");
  if (data.error) return t("review_failed", {reason: data.error});
  if (data.running) return t("review_progress", {done: data.appraised, count: data.positions});
  if (data.appraised >= data.limit) {
    return t("review_limited", {done: data.appraised, count: data.positions});
  }
  return t("review_paused", {done: data.appraised, count: data.positions});
}

// The best continuation from the reviewed position: a few moves, proven where exact.
async function showContinuation() {
  const ply = reviewing;
  if (ply === null) return;
  $("review-line-text").textContent = t("review_line_busy");
  const line = await post(`positions/${ply}/continuation`);
  if (reviewing !== ply) return;
  if (!line || !line.moves.length) { $("review-line-text").textContent = ""; return; }
  const moves = line.moves.map((m) => `${names(game)[m.seat]} ${m.name}`).join(", ");
  $("review-line-text").textContent = t(line.exact ? "review_line_exact" : "review_line_estimate",
                                        {moves});
}

// A new game against the computer from the reviewed position, the person to move, at the
// level of the game's computer (else medium).
async function playFromHere() {
  if (reviewing === null || !onCreated) return;
  const shown = await api(`/api/games/${gameId}/positions/${reviewing}`).catch(showError);
  if (!shown || shown.state.result) return;
  const created = await api("/api/games", {
    game: game.game, options: game.options, mode: "computer", bot: game.bot || "medium",
    human_seat: shown.state.to_move, helpers: true,
    position: {cells: shown.state.cells, to_move: shown.state.to_move}}).catch(showError);
  if (created) onCreated(created, {});
}

function endReview() {
  $("review-line-text").textContent = "";
  reviewing = wanted = null;
  $("review").hidden = true;
  if (game) render(game);
  drawReview();
}

// The computer's (or the other player's) move, said to screen readers once.
function announce(state) {
  if (!state.started || !state.moves.length || state.animatingMove) return;
  const key = `${state.id}:${state.ply}`;
  if (announcedPly === key) return;
  const first = announcedPly === null || !announcedPly.startsWith(`${state.id}:`);
  announcedPly = key;
  if (first) return;
  const last = state.moves[state.moves.length - 1];
  if (state.seat !== null && !state.local && last.seat === state.seat) return;
  $("announce").textContent = state.mode === "computer" && last.seat === state.bot_seat
    ? t("computer_played", {move: last.name}) : t("played", {name: names(state)[last.seat],
                                                             move: last.name});
}

// ----- Urubugu's setting: the grid laid out as the player's rows on the board -------------
function drawSetup(state) {
  const panel = $("setup-panel");
  panel.hidden = state.started;
  if (state.started) return;
  const seats = state.local ? [0, 1] : [state.seat];
  const mine = seats.find((s) => s !== null && !state.setup_done[s]);
  const waiting = mine === undefined;
  $("setup-wait").hidden = !waiting;
  $("setup-wait").textContent = waiting ? t("waiting_setup", {name: waitingFor(state)}) : "";
  $("setup-done").hidden = waiting;
  $("setup-default").hidden = waiting;
  const holes = $("setup-holes");
  if (waiting) { holes.replaceChildren(); holes.dataset.seat = ""; return; }
  if (holes.dataset.seat !== String(mine)) {
    holes.dataset.seat = String(mine);
    const inputs = Array.from({length: 16}, (_, k) => {
      const input = Object.assign(document.createElement("input"), {type: "number", min: 0,
                                                                    max: 32, value: 2});
      input.setAttribute("aria-label", `${k + 1}`);
      input.oninput = updateSetupSum;
      return input;
    });
    // as on the board, seen from the player's seat: the front row (holes 9-16, right to
    // left, facing the opponent) above, the back row (holes 1-8, left to right) below
    holes.replaceChildren(...inputs.slice(8).reverse(), ...inputs.slice(0, 8));
    holes.inputsInHoleOrder = inputs;
  }
  updateSetupSum();
}

function updateSetupSum() {
  const inputs = $("setup-holes").inputsInHoleOrder || [];
  const sum = inputs.reduce((total, input) => total + (Number(input.value) || 0), 0);
  $("setup-sum").textContent = sum;
  $("setup-done").disabled = sum !== 32 || inputs.some((i) => !(Number(i.value) >= 0));
  previewSetting(inputs);
}

// The beads as typed, on the board: each hole of the arranging seat shows its count.
function previewSetting(inputs) {
  const seat = Number($("setup-holes").dataset.seat);
  if (!game || game.started || !inputs.length || Number.isNaN(seat)) return;
  const cells = game.cells.slice();
  game.cells.forEach((_, cell) => {
    if (game.owners[cell] !== seat) return;
    const hole = Number(game.labels[seat][cell]);
    const count = Number(inputs[hole - 1]?.value);
    if (hole >= 1 && Number.isInteger(count) && count >= 0 && count <= 32) cells[cell] = count;
  });
  place = drawBoard($("board"), {...game, cells}, {view: viewer(game), playable: new Set(),
    names: names(game), reader: seat});
}

function drawControls(state) {
  const computer = state.mode === "computer";
  const seated = state.seat !== null;
  $("switch").hidden = !computer || !seated;
  $("level-row").hidden = !computer || !seated;
  $("automove-row").hidden = !computer || !seated;
  const alone = friendAway(state);  // online, the friend not come yet: nothing to ask them
  $("undo").hidden = !seated || !state.started || Boolean(state.result) || alone;
  $("end-game").hidden = !seated || !state.started || Boolean(state.result) || alone;
  const abortable = seated && state.abortable && !state.result;
  $("resign").hidden = !seated || !state.started || Boolean(state.result) || state.local ||
    abortable;
  $("abort").hidden = !abortable;
  $("offer-draw").hidden = !seated || state.mode !== "online" || abortable || state.arena ||
    !state.started || Boolean(state.result);
  firstMoveSeen = state.first_move_left != null && !state.result && !state.local ? {
    left: state.first_move_left, at: performance.now()} : null;
  tickFirstMove();
  if (state.rated || state.clock) $("undo").hidden = true;  // no take-backs there
  $("hint").hidden = !seated || !state.helpers || Boolean(state.result) || !state.started;
  const info = catalogue.games[state.game];
  $("analysis-row").hidden = !analysable(info) || !seated || !state.helpers;
  $("previews-row").hidden = !seated || !state.helpers;
  $("review-game").hidden = !mayReview(state);
  if (info && info.solvable && seated && state.helpers) followPreparation(state);
  $("skip").hidden = !state.animatingMove;
  if (computer) {
    if (![...$("level").options].some((o) => o.value === state.bot)) {
      $("level").add(new Option(levelName(state.bot), state.bot));
    }
    $("level").value = state.bot;
    $("game-automove").checked = state.automove;
  }
  $("links").hidden = state.mode !== "online";
  $("position-link").value = state.started ? positionLink(state) : "";
  $("watch-link").value = `${location.origin}/?game=${state.id}`;
}

// ----- the end of a game: the score, how it ended, a rematch ------------------------------
function showEnd(state) {
  if (!state.result) { endShown = null; return; }
  const dialog = $("end-dialog");
  if (state.rematch && state.rematch.id && dialog.open) {
    $("end-rematch").textContent = t("play_rematch");
  }
  drawRatingChange(state, names(state));  // it may come with a later message
  if (endShown === state.id) return;
  endShown = state.id;
  sound("end");
  const shownNames = names(state);
  const kind = state.result.kind;
  $("end-title").textContent = state.result.termination === "abort" ? t("end_title_abort")
    : kind === "win" ? winnerText(state)
    : t(kind === "draw" ? "end_title_draw" : "end_title_timeout");
  $("end-score").textContent = `${shownNames[0]} ${state.score[0]} – ${state.score[1]} ${shownNames[1]}`;
  const why = state.result.termination ? `reason_${state.result.termination}`
    : kind === "timeout" ? "reason_timeout" : "reason_over";
  $("end-reason").textContent = endReason(state, why, shownNames);
  $("end-rematch").textContent = t(state.rematch ? "play_rematch" : "rematch");
  $("end-rematch").hidden = state.seat === null;
  if (!dialog.open) dialog.showModal();
}

// Why the game ended, naming who resigned, ran out of time or aborted it.
function endReason(state, why, shownNames) {
  const {aborted_by: aborted, resigned, flagged} = state.result;
  if (aborted != null && aborted !== state.seat) {
    return t("reason_abort_by", {name: shownNames[aborted]});
  }
  if (resigned != null && !state.local) return t("reason_resign_by", {name: shownNames[resigned]});
  if (state.result.termination === "abandon") {
    return t("reason_abandon_by", {name: shownNames[1 - state.result.winner]});
  }
  if (flagged != null) return t("reason_time_by", {name: shownNames[flagged]});
  return t(why);
}

// A rated game's rating change for each player: "Ama 1500 → 1662 (+162)".
function drawRatingChange(state, shownNames) {
  const change = state.rating_change;
  $("end-ratings").hidden = !change;
  if (!change) return;
  $("end-ratings").textContent = change.map(([before, after], seat) => {
    const delta = Math.round(after) - Math.round(before);
    return `${shownNames[seat]} ${Math.round(before)} → ${Math.round(after)} ` +
      `(${delta >= 0 ? "+" : "−"}${Math.abs(delta)})`;
  }).join(" · ");
}

// "Your move", for a game against a person online: the tab's title and icon say it, and a
// notification does when the page is hidden and the player asked for them (correspondence
// games are played this way: nobody watches a tab for a day).
const ICON_IDLE = "data:,";
const ICON_MOVE = "data:image/svg+xml," + encodeURIComponent(
  "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'>" +
  "<circle cx='8' cy='8' r='7' fill='#1f7a4d'/></svg>");
let toldPly = null;

function yourMove(state) {
  return state.mode === "online" && state.seat !== null && state.started && !state.result &&
    state.to_move === state.seat;
}

function tellYourMove(state) {
  const mine = yourMove(state);
  document.title = mine ? `● ${t("your_turn")} · mancalab` : "mancalab";
  document.querySelector("link[rel=icon]").href = mine ? ICON_MOVE : ICON_IDLE;
  $("notify-row").hidden = state.mode !== "online" || state.seat === null ||
    !("Notification" in window);
  $("notify-move").checked = localStorage.getItem("mancalab.notify") === "on" &&
    "Notification" in window && Notification.permission === "granted";
  if (!mine || toldPly === `${state.id}:${state.ply}`) return;
  toldPly = `${state.id}:${state.ply}`;
  if (document.hidden && $("notify-move").checked) {
    new Notification(t("your_turn"), {body: `${t(`game_${state.game}`)} · ${
      names(state)[1 - state.seat]}`, tag: state.id});
  }
}

async function askToNotify() {
  const wanted = $("notify-move").checked;
  if (wanted && Notification.permission !== "granted") {
    $("notify-move").checked = await Notification.requestPermission() === "granted";
  }
  localStorage.setItem("mancalab.notify", $("notify-move").checked ? "on" : "off");
}

// The opponent has left a game on a clock: after the server's claim_seconds the player may
// claim the win (the server counts the time; the page counts down between its messages).
let claimSeen = null;

function drawClaim(state) {
  const other = state.seat === null ? null : 1 - state.seat;
  const gone = other === null || !state.gone_for ? null : state.gone_for[other];
  const shown = state.mode === "online" && Boolean(state.clock) && !state.clock.per_move &&
    !state.result && gone !== null && !state.abortable;
  claimSeen = shown ? {gone, at: performance.now(), name: names(state)[other],
                       after: state.claim_seconds} : null;
  tickClaim();
}

function tickClaim() {
  $("claim").hidden = !claimSeen;
  if (!claimSeen) return;
  const left = Math.ceil(claimSeen.after - claimSeen.gone -
                         (performance.now() - claimSeen.at) / 1000);
  $("claim-text").textContent = left > 0
    ? t("opponent_left_wait", {name: claimSeen.name, seconds: left})
    : t("opponent_left", {name: claimSeen.name});
  $("claim-win").hidden = left > 0;
}

setInterval(tickClaim, 500);

// A rematch offered online: shown to the other player wherever they are on the page (a
// banner over the board and a line in the end dialog), accepted or declined in one tap; the
// asker sees that it waits, or that it was declined.
function drawRematch(state) {
  const offer = state.rematch;
  const mine = offer && offer.by === state.seat;
  const shown = state.mode === "online" && state.seat !== null && Boolean(state.result) &&
    Boolean(offer) && (mine || !offer.declined);
  $("rematch-offer").hidden = !shown;
  $("end-rematch-note").textContent = "";
  if (!shown) return;
  const other = names(state)[1 - state.seat];
  const text = !mine ? t("rematch_offered", {name: other})
    : t(offer.declined ? "rematch_declined" : "rematch_waiting", {name: other});
  $("rematch-text").textContent = text;
  $("end-rematch-note").textContent = text;
  $("rematch-accept").hidden = $("rematch-decline").hidden = mine;
  if (mine) $("end-rematch").hidden = true;
}

async function rematch() {
  if (game.rematch) { go(game.rematch.id, game.rematch.token); return; }
  const created = await post("rematch");
  if (created) go(created.id, created.token);
}

function go(id, seatToken) {
  $("end-dialog").close();
  localStorage.setItem(`mancalab.token.${id}`, seatToken);
  remember(id, seatToken);
  history.pushState({}, "", `/?game=${id}&token=${seatToken}`);
  openGame(catalogue, id, seatToken);
}

// ----- the server's preparation of exact analysis (databases, books), shown until ready -----
let preparedGame = null;  // the game whose preparation is followed
let preparationTimer = null;

async function followPreparation(state) {
  if (preparedGame === state.id) return;
  preparedGame = state.id;
  clearTimeout(preparationTimer);
  const check = async () => {
    if (preparedGame !== state.id) return;
    const status = await api("/api/preparation").catch(() => null);
    const mine = status && status.games[state.game];
    const note = $("prep-note");
    note.hidden = !mine || mine.ready;
    if (!mine || mine.ready) return;
    // still building: the time left, or (past its foretold end) that it is nearly there
    const waiting = mine.seconds_left > 0 || mine.late;
    const minutes = Math.max(1, Math.round(mine.seconds_left / 60));
    note.textContent = mine.late ? t("prep_late")
      : waiting ? (mine.seconds_left < 60 ? t("prep_soon") : plural("prep_waiting", minutes))
      : t("prep_missing", {reason: status.steps.filter((s) => s.game === state.game && s.reason)
                                        .map((s) => s.reason).join("; ")});
    if (waiting) preparationTimer = setTimeout(check, 10000);
  };
  check();
}

// ----- exact values (solved games) and hints in words --------------------------------------
// a solved game, or one whose endgame tables answer where they reach (Oware)
function analysable(info) {
  return Boolean(info && (info.solvable || info.tables));
}

function wantsAnalysis(state) {
  return $("analysis").checked && analysable(catalogue.games[state.game]) && mayMove(state);
}

function analysed(state) {
  return $("analysis").checked ? analysedPlies[`${state.id}:${state.ply}`] || null : null;
}

async function requestAnalysis(state) {
  if (analysing || !wantsAnalysis(state) || analysed(state)) return;
  analysing = true;
  $("hover-info").textContent = t("analysis_busy");
  const answer = await post("analysis");
  analysing = false;
  $("hover-info").textContent = "";
  if (!answer) { $("analysis").checked = false; return; }
  analysedPlies[`${state.id}:${answer.ply}`] = answer;
  // a "?" is a move not proven in the time a request has, or one whose value the positions
  // before it decide (Oware's tables): say which, and where its bounds are
  const unknown = answer.moves.filter((entry) => entry.value === null);
  if (unknown.some((entry) => !entry.endless)) {
    $("hover-info").textContent = t(state.preparing || !$("prep-note").hidden
      ? "analysis_unknown_preparing" : "analysis_unknown");
  } else if (unknown.length) {
    $("hover-info").textContent = t("analysis_endless_note");
  }
  if (game) render(game);
}

function moveWords(entry) {
  if (entry.value === null) {
    return t(entry.endless ? "analysis_endless" : "analysis_between",
             {low: signed(entry.lower), high: signed(entry.upper)});
  }
  if (entry.value === 0) return t("draw");
  return t(entry.value > 0 ? "analysis_wins" : "analysis_loses", {n: Math.abs(entry.value)});
}

// An evaluation in words: exact values as exact, an estimate as the computer's estimate.
function valueInWords(answer) {
  const value = answer.value;
  if (value === null || value === undefined) return "";
  if (answer.exact) {
    if (value === 0) return t("eval_exact_draw");
    return t(value > 0 ? "eval_exact_win" : "eval_exact_loss", {count: Math.abs(value)});
  }
  if (Math.abs(value) >= 100000) return t(value > 0 ? "eval_won" : "eval_lost");
  if (Math.abs(value) < 0.5) return t("eval_even");
  return t(value > 0 ? "eval_ahead" : "eval_behind");
}

function drawLosses(state) {
  const rows = [];
  if (state.result) {
    state.moves.forEach((played, ply) => {
      const answer = analysedPlies[`${state.id}:${ply}`];
      if (!answer || !answer.exact) return;
      const entry = answer.moves.find((m) => m.cell === played.move);
      if (!entry || entry.value === null || entry.value >= answer.value) return;
      rows.push(t("lost_value", {ply: ply + 1, name: names(state)[played.seat], move: played.name,
        lost: answer.value - entry.value,
        best: answer.best_moves.length ? answer.best_moves.join(", ") : t("no_best")}));
    });
  }
  $("losses").replaceChildren(...rows.map((text) => Object.assign(document.createElement("li"),
                                                                  {textContent: text})));
  $("losses-block").hidden = rows.length === 0;
}

// ----- actions -----------------------------------------------------------------------------
async function post(path, body = {}) {
  showError(null);
  try { return await api(`/api/games/${gameId}/${path}`, {token, ...body}); }
  catch (error) { showError(error); return null; }
}

// Premove: on the opponent's turn in a game against a person, one of the player's own holes
// may be queued (tapped again: cancelled); it is sent when the turn comes if the server then
// lists it among the legal moves, and dropped otherwise. The page decides no rule: which
// move is legal is the server's answer.
let premove = null;

function mayPremove(state) {
  return state.mode === "online" && state.seat !== null && state.started && !state.result &&
    state.to_move !== state.seat && !state.local;
}

function ownHoles(state) {
  return state.cells.map((count, cell) => cell).filter(
    (cell) => state.owners[cell] === state.seat && state.cells[cell] > 0);
}

function playPremove(state) {
  if (premove === null || !mayMove(state)) return;
  const queued = premove;
  premove = null;
  if (state.legal.includes(queued)) play(queued);
}

async function play(cell) {
  if (game && !mayMove(game) && mayPremove(game)) {
    premove = premove === cell ? null : cell;
    render(game);
    return;
  }
  if (!game || !mayMove(game)) return;
  skip();  // a move made during the last one's animation: the board shows where it stands
  showError(null);
  const asked = game.ply;
  try { await api(`/api/games/${gameId}/moves`, {token, move: cell, ply: asked}); }
  catch (error) {
    // a tap on a board behind the game (the computer or the friend moved meanwhile): the
    // page takes the game as it is now instead of asking for a reload
    const query = token ? `?token=${encodeURIComponent(token)}` : "";
    const now = error.status === 409 ? await api(`/api/games/${gameId}${query}`).catch(() => null)
      : null;
    if (now && now.ply !== asked) receive(now);
    else showError(error);
  }
}

let wired = false;
function wireControls() {
  if (wired) return;
  wired = true;
  const board = $("board");
  onPlayableHole(board, (cell) => { if (!landing.swallowPress()) play(cell); });
  let pointed = null;  // the hole pointed at last: a preview arriving later for another is dropped
  const describe = async (event) => {
    const hole = event.target.closest(".hole");
    if (!hole || hole === pointed) return;
    pointed = hole;
    $("hover-info").textContent = hole.dataset.name;
    landing.clear(board);
    if (!hole.classList.contains("playable") || !previewing(game)) return;
    const said = await landing.preview(board, place, hole, game, token, cellWords);
    if (pointed !== hole) landing.clear(board);
    else if (said) $("hover-info").textContent = `${hole.dataset.name} — ${said}`;
  };
  board.addEventListener("mouseover", describe);
  board.addEventListener("focusin", describe);
  board.addEventListener("mouseleave", () => {
    pointed = null;
    landing.clear(board);
    $("hover-info").textContent = "";
  });
  landing.wireLongPress(board, (hole) => { pointed = null; describe({target: hole}); });
  landing.wireSwitch($("previews"), () => render(game));
  $("undo").onclick = () => post("undo");
  $("resign").onclick = () => { if (confirm(t("resign_confirm"))) post("resign"); };
  $("abort").onclick = () => { if (confirm(t("abort_confirm"))) post("abort"); };
  $("offer-draw").onclick = () => post("draw");
  $("end-game").onclick = () => {
    const asked = {local: "end_confirm_local", computer: "end_confirm_computer"}[game.mode];
    if (asked && !confirm(t(asked))) return;  // a mistaken tap does not end the game
    post("end");
  };
  $("request-accept").onclick = () => post($("request").dataset.kind);
  $("request-decline").onclick = () => post("decline");
  $("switch").onclick = () => post("switch");
  $("flip").onclick = () => { flipped = !flipped; render(game); };
  $("skip").onclick = skip;
  $("analysis").onchange = () => render(game);
  $("level").onchange = () => post("computer", {bot: $("level").value});
  $("game-automove").onchange = () => post("computer", {automove: $("game-automove").checked});
  $("hint").onclick = async () => {
    const answer = await post("hint", {player: "expert"});
    if (!answer) return;
    $("hover-info").textContent = t("hint_is", {move: answer.name, why: valueInWords(answer)});
    hintAt = game.ply;
  };
  $("setup-default").onclick = () => {
    for (const input of $("setup-holes").inputsInHoleOrder) input.value = "2";
    updateSetupSum();
  };
  $("setup-done").onclick = () => post("setup", {
    seat: Number($("setup-holes").dataset.seat),
    setting: $("setup-holes").inputsInHoleOrder.map((input) => Number(input.value))});
  $("review-back").onclick = () => step(-1);
  $("review-next").onclick = () => step(1);
  $("review-end").onclick = endReview;
  $("review-line").onclick = showContinuation;
  $("review-play").onclick = playFromHere;
  $("review-game").onclick = askReview;
  $("setup-position").onclick = setUpPosition;
  $("end-review").onclick = () => { $("end-dialog").close(); askReview(); };
  document.addEventListener("keydown", (event) => {
    if ($("play").hidden || event.target.closest("input, select, textarea")) return;
    if (event.key === "ArrowLeft") step(-1);
    else if (event.key === "ArrowRight" && reviewing !== null) step(1);
    else if (event.key === "Escape" && reviewing !== null) endReview();
  });
  $("end-rematch").onclick = rematch;
  $("rematch-accept").onclick = rematch;
  $("claim-win").onclick = () => post("claim");
  $("notify-move").onchange = askToNotify;
  $("rematch-decline").onclick = () => post("rematch/decline");
  $("end-close").onclick = () => $("end-dialog").close();
  $("share-invite").onclick = () => navigator.share?.({url: $("invite-link").value,
                                                       title: gameName(game.game)});
}

export function currentGame() {
  return game;
}
