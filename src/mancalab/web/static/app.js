// mancalab in the browser: the page draws what the server sends; every rule is the server's.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const params = new URLSearchParams(location.search);
let texts = {};            // the interface texts of the chosen language
let catalogue = null;      // games, options, levels (GET /api/games)
let game = null;           // the last state received
let gameId = params.get("game");
let token = null;
let socket = null;
let flipped = false;       // the viewer turned the board by hand
let animation = null;      // {timer, finish} of the running animation
let analysing = false;     // an analysis request is on its way
const analysedPlies = {};  // "id:ply" -> the exact values of that position (Kalah)

// ----- languages: one JSON file each under /static/i18n ---------------------------------
function t(key, values = {}) {
  let text = texts[key] || key;
  for (const [name, value] of Object.entries(values)) text = text.replace(`{${name}}`, value);
  return text;
}

let languageWanted = null;  // the last language asked for: a slower earlier fetch must not win

async function setLanguage(code) {
  languageWanted = code;
  const loaded = await (await fetch(`/static/i18n/${code}.json`)).json();
  if (code !== languageWanted) return;
  texts = loaded;
  localStorage.setItem("mancalab.language", code);
  document.documentElement.lang = code;
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  if (game) render(game);
}

// ----- the server ------------------------------------------------------------------------
async function api(path, body) {
  const response = await fetch(path, body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const detail = Array.isArray(data.detail) ? data.detail.map((d) => d.msg).join("; ") : data.detail;
    throw new Error(detail || response.statusText);
  }
  return data;
}

function showError(error) {
  $("message").textContent = error ? String(error.message || error) : "";
}

// ----- the new-game form -----------------------------------------------------------------
function fillHome() {
  const select = $("game");
  for (const [name, info] of Object.entries(catalogue.games)) select.add(new Option(info.title, name));
  select.onchange = fillOptions;
  const levels = Object.keys(catalogue.levels);
  for (const box of [$("bot"), $("level")]) {
    for (const level of levels) box.add(new Option(level, level));
    for (const name of catalogue.players) box.add(new Option(name, name));
    box.value = "medium";
  }
  fillOptions();
  for (const radio of document.querySelectorAll("input[name=mode]")) radio.onchange = showModeFields;
  showModeFields();
  $("new-game").onsubmit = async (event) => {
    event.preventDefault();
    try { await createGame(); } catch (error) { $("home-error").textContent = error.message; }
  };
  $("record-file").onchange = async () => {
    const file = $("record-file").files[0];
    if (!file) return;
    try {
      const mode = document.querySelector("input[name=mode]:checked").value;
      const created = await api("/api/games/load", {record: await file.text(), mode,
        bot: $("bot").value, human_seat: Number($("seat").value), automove: $("automove").checked});
      openGame(created);
    } catch (error) { $("home-error").textContent = error.message; }
  };
}

function fillOptions() {
  const box = $("options");
  box.querySelectorAll("label").forEach((node) => node.remove());
  const info = catalogue.games[$("game").value];
  for (const [name, option] of Object.entries(info.options)) {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.name = name;
    input.dataset.option = name;
    input.dataset.default = String(option.default);
    input.value = option.default === null ? "" : String(option.default);
    input.title = option.values;
    input.size = 10;
    label.append(`${name} `, input, ` (${option.values})`);
    box.append(label);
  }
  $("setup-row").hidden = $("game").value !== "urubugu";
}

function showModeFields() {
  const mode = document.querySelector("input[name=mode]:checked").value;
  $("computer-options").hidden = mode !== "computer";
}

async function createGame() {
  const options = {};
  for (const input of document.querySelectorAll("[data-option]")) {
    if (input.value !== input.dataset.default && input.value !== "") options[input.dataset.option] = input.value;
  }
  const mode = document.querySelector("input[name=mode]:checked").value;
  const created = await api("/api/games", {
    game: $("game").value, options, mode, bot: $("bot").value, automove: $("automove").checked,
    human_seat: Number($("seat").value), names: [$("name-a").value || "A", $("name-b").value || "B"],
    setup: $("game").value === "urubugu" && $("setup").checked});
  openGame(created);
}

function openGame(created) {
  localStorage.setItem(`mancalab.token.${created.id}`, created.token);
  if (created.links.invite) {
    localStorage.setItem(`mancalab.invite.${created.id}`, location.origin + created.links.invite);
  }
  history.pushState({}, "", created.links.play);
  gameId = created.id;
  token = created.token;
  startGame();
}

// ----- a game: live over a websocket ------------------------------------------------------
function startGame() {
  $("home").hidden = true;
  $("play").hidden = false;
  token = params.get("token") || token || localStorage.getItem(`mancalab.token.${gameId}`);
  if (token) localStorage.setItem(`mancalab.token.${gameId}`, token);
  $("download").href = `/api/games/${gameId}/record`;
  connect(0);
}

function connect(attempt) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const query = token ? `?token=${encodeURIComponent(token)}` : "";
  socket = new WebSocket(`${scheme}://${location.host}/api/games/${gameId}/ws${query}`);
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "state") receive(message.state);
    else if (message.type === "error") showError(message.message);
  };
  socket.onopen = () => { attempt = 0; $("status").classList.remove("offline"); };
  socket.onclose = (event) => {
    if (event.code === 4404) { showError(event.reason); return; }
    $("status").textContent = t("reconnecting");
    $("status").classList.add("offline");
    setTimeout(() => connect(attempt + 1), Math.min(5000, 250 * 2 ** attempt));
  };
}

// States are shown in the order they arrive: a move's animation ends before the next begins.
let shown = Promise.resolve();
function receive(state) {
  shown = shown.then(() => show(state)).catch((error) => showError(error.message));
}

async function show(state) {
  const before = game;
  game = state;
  if (before && before.started && state.started && state.ply === before.ply + 1) {
    await animate(before, state);
  }
  if (game === state) render(state);
}

// The last move as the rules played it (state.sowing, from the server: lift, drop, capture,
// bank, set; each with the cell's new count and the seeds in hand), one step after another:
// the hole in play lights up and the hand's count is shown. The speed menu sets the time a
// step (a long relay goes faster, so a move takes at most MAX_MOVE_MS); Skip ends it.
// A move too long to send step by step lights the changed holes at once.
const MAX_MOVE_MS = 15000;
function animate(before, after) {
  const pace = Number($("speed").value);
  if (!pace) return Promise.resolve();
  const steps = after.sowing || changedHoles(before, after);
  const delay = Math.max(8, Math.min(pace, MAX_MOVE_MS / Math.max(1, steps.length)));
  render({...after, cells: before.cells, legal: [], suggestion: null});
  document.body.classList.add("animating");
  return new Promise((resolve) => {
    let k = 0, lit = null;
    const tick = () => {
      if (lit) lit.classList.remove("step-lift", "step-drop", "step-capture", "step-bank", "step-set");
      if (k >= steps.length) { finish(); return; }
      const [kind, cell, count, hand] = steps[k++];
      lit = document.querySelector(`[data-cell="${cell}"]`);
      if (lit) {
        lit.querySelector("text.count").textContent = count;
        lit.classList.add(`step-${kind}`);
      } else if (kind === "bank") {  // a count kept beside the board: Gebeta's families
        const score = document.querySelector(`.score[data-seat="${after.owners[cell]}"]`);
        if (score) {
          score.textContent = t("score", {noun: after.score_noun, score: count});
          score.classList.add("scored");
        }
      }
      $("hand").textContent = hand > 0 ? t("in_hand", {count: hand}) : "";
      animation.timer = setTimeout(tick, delay);
    };
    const finish = () => {
      animation = null;
      $("hand").textContent = "";
      document.body.classList.remove("animating");
      resolve();
    };
    animation = {timer: setTimeout(tick, 0), finish};
  });
}

function changedHoles(before, after) {
  const steps = [];
  after.cells.forEach((count, cell) => {
    if (count !== before.cells[cell]) steps.push(["set", cell, count, 0]);
  });
  return steps;
}

function skipAnimation() {
  if (!animation) return;
  clearTimeout(animation.timer);
  animation.finish();
}

// ----- drawing ----------------------------------------------------------------------------
function viewer(state) {
  const own = state.seat === null || state.local ? 0 : state.seat;
  return flipped ? 1 - own : own;
}

function mayMove(state) {
  if (!state.started || state.result || state.thinking || state.seat === null) return false;
  if (state.local) return true;
  if (state.mode === "computer") {
    return state.to_move !== state.bot_seat || state.suggestion !== null;
  }
  return state.to_move === state.seat;
}

function render(state) {
  drawBoard(state);
  drawPlayers(state);
  drawMoves(state);
  drawSetup(state);
  drawControls(state);
  requestAnalysis(state);
  drawLosses(state);
}

// At the end: each analysed move that gave value away, with what the best would have kept.
function drawLosses(state) {
  const list = $("losses");
  const rows = [];
  if (state.result) {
    state.moves.forEach((played, ply) => {
      const answer = analysedPlies[`${state.id}:${ply}`];
      if (!answer || !answer.exact) return;
      const entry = answer.moves.find((m) => m.cell === played.move);
      if (!entry || entry.value === null || entry.value >= answer.value) return;
      rows.push(t("lost_value", {ply: ply + 1, name: state.names[played.seat], move: played.name,
        lost: answer.value - entry.value, best: answer.best_moves.join(", ")}));
    });
  }
  list.replaceChildren(...rows.map((text) => {
    const item = document.createElement("li");
    item.textContent = text;
    return item;
  }));
  $("losses-block").hidden = rows.length === 0;
}

// ----- the analysis switch: every playable hole marked with its exact value ---------------
function wantsAnalysis(state) {
  const info = catalogue && catalogue.games[state.game];
  return $("analysis").checked && Boolean(info && info.solvable) && mayMove(state);
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
  if (!answer) { $("analysis").checked = false; return; }  // the error is shown
  analysedPlies[`${state.id}:${answer.ply}`] = answer;
  if (game) render(game);  // draws the values, or asks again if the game moved on
}

function valueWords(entry) {
  if (entry.value === null) {
    return t(entry.endless ? "analysis_endless" : "analysis_between",
             {low: signed(entry.lower), high: signed(entry.upper)});
  }
  if (entry.value === 0) return t("draw");
  return t(entry.value > 0 ? "analysis_wins" : "analysis_loses", {n: Math.abs(entry.value)});
}

const signed = (n) => (n > 0 ? `+${n}` : String(n));

function drawBoard(state) {
  const svg = $("board");
  svg.replaceChildren();
  const view = viewer(state);
  let rows = state.grid.map((row) => row.slice());
  if (view === 1) rows = rows.reverse().map((row) => row.reverse());
  const size = 64, columns = rows[0].length;
  svg.setAttribute("viewBox", `0 0 ${columns * size} ${rows.length * size + 24}`);
  const legal = new Set(mayMove(state) ? state.legal : []);
  const last = state.moves && state.moves.length ? state.moves[state.moves.length - 1].move : null;
  rows.forEach((row, r) => row.forEach((cell, c) => {
    if (cell === null) return;
    const store = rows.every((other, k) => k === r || other[c] === null) && rows.length > 1;
    drawHole(svg, state, cell, c * size, store ? 0 : r * size, size, store ? rows.length * size : size,
             legal.has(cell), cell === last, view);
  }));
}

function drawHole(svg, state, cell, x, y, width, height, playable, last, view) {
  const group = document.createElementNS(SVG, "g");
  group.dataset.cell = cell;
  const owner = state.owners[cell];
  group.setAttribute("class", `hole owner${owner}${playable ? " playable" : ""}${last ? " last" : ""}` +
    `${state.suggestion === cell ? " suggested" : ""}`);
  const shape = document.createElementNS(SVG, "rect");
  shape.setAttribute("x", x + 4); shape.setAttribute("y", y + 4);
  shape.setAttribute("width", width - 8); shape.setAttribute("height", height - 8);
  shape.setAttribute("rx", (width - 8) / 2);
  const count = document.createElementNS(SVG, "text");
  count.setAttribute("class", "count");
  count.setAttribute("x", x + width / 2); count.setAttribute("y", y + height / 2 + 7);
  count.textContent = state.cells[cell];
  group.append(shape, count);
  const exact = analysed(state) && mayMove(state) && state.legal.includes(cell)
    ? analysed(state).moves.find((entry) => entry.cell === cell) : null;
  if (exact) {
    const mark = document.createElementNS(SVG, "text");
    mark.setAttribute("class", "value");
    mark.setAttribute("x", x + width / 2); mark.setAttribute("y", y + 18);
    mark.textContent = exact.value === null ? "?" : signed(exact.value);
    group.append(mark);
    if (analysed(state).best_cells.includes(cell)) group.classList.add("best");
  }
  // a seated player reads their own notation; on a shared screen each hole its owner's
  const reader = state.local || state.seat === null ? owner : view;
  const label = reader === null ? null : state.labels[reader][cell];
  if (label) {
    const name = document.createElementNS(SVG, "text");
    name.setAttribute("class", "label");
    name.setAttribute("x", x + width / 2); name.setAttribute("y", y + height - 10);
    name.textContent = label;
    group.append(name);
  }
  const info = t(state.legal.includes(cell) && state.started ? "playable" : "not_playable",
                 {count: state.cells[cell]});
  const title = document.createElementNS(SVG, "title");
  title.textContent = (label ? `${label}: ` : "") + info + (exact ? ` · ${valueWords(exact)}` : "");
  group.append(title);
  group.setAttribute("aria-label", title.textContent);
  group.addEventListener("mouseenter", () => { $("hover-info").textContent = title.textContent; });
  if (playable) {
    group.setAttribute("tabindex", "0");
    group.setAttribute("role", "button");
    group.addEventListener("click", () => play(cell));
    group.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); play(cell); }
    });
    group.addEventListener("focus", () => { $("hover-info").textContent = title.textContent; });
  }
  svg.append(group);
}

function drawPlayers(state) {
  const view = viewer(state);
  const line = (seat) => {
    const turn = state.started && !state.result && state.to_move === seat;
    return `<span class="name${turn ? " turn" : ""}">${escapeHtml(state.names[seat])}</span> ` +
      `<span class="score" data-seat="${seat}">${escapeHtml(t("score", {noun: state.score_noun, score: state.score[seat]}))}</span>`;
  };
  $("player-top").innerHTML = line(1 - view);
  $("player-bottom").innerHTML = line(view);
  let status;
  if (!state.started) status = t("waiting_setup");
  else if (state.result) {
    status = state.result.kind === "win" ? t("wins", {name: state.names[state.result.winner]})
      : t(state.result.kind === "draw" ? "draw" : "timeout");
    if (state.result.termination) status += ` · ${t("ended_" + state.result.termination)}`;
  } else if (state.error) status = t("computer_failed", {reason: state.error});
  else if (state.thinking) status = t(state.preparing ? "thinking_first" : "thinking");
  else if (state.suggestion !== null && state.suggestion !== undefined) {
    status = t("suggested", {move: state.suggestion_name});
  } else if (state.seat !== null && !state.local && state.to_move === state.seat) status = t("your_turn");
  else status = t("to_move", {name: state.names[state.to_move]});
  if (state.status) status += ` · ${state.status}`;
  if (state.seat === null) status += ` · ${t("spectator")}`;
  if (state.end_request !== null && state.end_request !== undefined && !state.result) {
    status += " · " + (state.end_request === state.seat ? t("end_waiting")
      : t("end_asked", {name: state.names[state.end_request]}));
  }
  if (state.undo_request !== null) {
    status += " · " + (state.undo_request === state.seat ? t("undo_waiting")
      : t("undo_asked", {name: state.names[state.undo_request]}));
  }
  $("status").textContent = status;
}

function drawMoves(state) {
  const list = $("move-list");
  list.replaceChildren(...state.moves.map((m) => {
    const item = document.createElement("li");
    item.textContent = `${"AB"[m.seat]} ${m.name}`;
    return item;
  }));
}

function drawSetup(state) {
  const panel = $("setup-panel");
  const seats = state.local ? [0, 1] : [state.seat];
  const mine = seats.find((s) => s !== null && !state.setup_done[s]);
  panel.hidden = state.started;
  if (state.started) return;
  $("setup-wait").hidden = mine !== undefined;
  $("setup-done").hidden = mine === undefined;
  $("setup-default").hidden = mine === undefined;
  const holes = $("setup-holes");
  if (mine === undefined) { holes.replaceChildren(); return; }
  if (holes.dataset.seat !== String(mine)) {
    holes.dataset.seat = String(mine);
    holes.replaceChildren(...Array.from({length: 16}, (_, k) => {
      const input = document.createElement("input");
      input.type = "number"; input.min = "0"; input.max = "32"; input.value = "2";
      input.setAttribute("aria-label", `hole ${k + 1}`);
      input.oninput = updateSetupSum;
      return input;
    }));
    // back row 1..8 left to right above, front row 16..9 below: the player's own view
    const inputs = [...holes.children];
    holes.replaceChildren(...inputs.slice(0, 8), ...inputs.slice(8).reverse());
    holes.inputsInHoleOrder = inputs;
  }
  updateSetupSum();
}

function updateSetupSum() {
  const inputs = $("setup-holes").inputsInHoleOrder || [];
  const sum = inputs.reduce((total, input) => total + (Number(input.value) || 0), 0);
  $("setup-sum").textContent = sum;
  $("setup-done").disabled = sum !== 32 || inputs.some((i) => !(Number(i.value) >= 0));
}

function drawControls(state) {
  const computer = state.mode === "computer";
  $("switch").hidden = !computer || state.seat === null;
  $("level-row").hidden = !computer || state.seat === null;
  $("automove-row").hidden = !computer || state.seat === null;
  $("undo").hidden = state.seat === null;
  $("end-game").hidden = state.seat === null || !state.started || Boolean(state.result);
  const info = catalogue && catalogue.games[state.game];
  $("analysis-row").hidden = !(info && info.solvable) || state.seat === null;
  if (computer) {
    $("level").value = state.bot;
    $("game-automove").checked = state.automove;
  }
  $("links").hidden = state.mode !== "online" || state.seat === null;
  $("watch-link").value = `${location.origin}/?game=${state.id}`;
  // only the creator was given the invite link (it holds the other seat's token)
  const invite = localStorage.getItem(`mancalab.invite.${state.id}`);
  $("invite-link").parentElement.hidden = !invite;
  $("invite-link").value = invite || "";
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

// ----- actions ----------------------------------------------------------------------------
async function post(path, body = {}) {
  showError(null);
  try { return await api(`/api/games/${gameId}/${path}`, {token, ...body}); }
  catch (error) { showError(error); return null; }
}

const play = (cell) => post("moves", {move: cell, ply: game.ply});

function wireControls() {
  $("undo").onclick = () => post("undo");
  $("end-game").onclick = () => {
    // one screen: both players are here, so the other's consent is asked on it
    if (game.mode === "local" && !confirm(t("end_confirm_local"))) return;
    post("end");
  };
  $("switch").onclick = () => post("switch");
  $("flip").onclick = () => { flipped = !flipped; render(game); };
  $("skip").onclick = skipAnimation;
  $("analysis").onchange = () => render(game);
  $("level").onchange = () => post("computer", {bot: $("level").value});
  $("game-automove").onchange = () => post("computer", {automove: $("game-automove").checked});
  $("hint").onclick = async () => {
    const answer = await post("hint", {player: "expert"});
    if (answer) {
      const value = answer.value === null || answer.value === undefined ? "?" : Number(answer.value).toFixed(2);
      $("hover-info").textContent = t("hint_is", {move: answer.name, value});
    }
  };
  $("setup-default").onclick = () => {
    for (const input of $("setup-holes").inputsInHoleOrder) input.value = "2";
    updateSetupSum();
  };
  $("setup-done").onclick = () => post("setup", {
    seat: Number($("setup-holes").dataset.seat),
    setting: $("setup-holes").inputsInHoleOrder.map((input) => Number(input.value))});
  for (const button of document.querySelectorAll("[data-copy]")) {
    button.onclick = async () => {
      await navigator.clipboard?.writeText($(button.dataset.copy).value).catch(() => {});
      button.textContent = t("copied");
    };
  }
}

// ----- start ------------------------------------------------------------------------------
async function main() {
  catalogue = await api("/api/games");
  const language = localStorage.getItem("mancalab.language") ||
    (navigator.language || "en").slice(0, 2);
  const select = $("language");
  for (const [code, name] of Object.entries(catalogue.languages)) select.add(new Option(name, code));
  select.value = catalogue.languages[language] ? language : "en";
  select.onchange = () => setLanguage(select.value);
  await setLanguage(select.value);
  wireControls();
  if (gameId) startGame(); else { $("home").hidden = false; fillHome(); }
}

main();
