// The home page: the games as cards, how to play, each option as a plain control, and the
// new game (or a saved one) sent to the server.
import {drawBoard} from "./board.js";
import {api} from "./server.js";
import {currentLanguage, plural, sayError, t, translatePage} from "./texts.js";

const $ = (id) => document.getElementById(id);
let catalogue = null;

// A level or a player as people say it: the five levels, mancalab's players by what they do
// (the engine's name, e.g. the original program's bot, in the option's detail), an
// operator's engine by its name.
export function levelName(name) {
  for (const key of [`level_${name}`, `player_${name}`]) {
    const text = t(key);
    if (text !== key) return text;
  }
  return name;
}

export function gameName(game) {
  return t(`game_${game}`);
}

export function useCatalogue(theCatalogue) {
  catalogue = theCatalogue;
}

export async function showHome(openGame) {
  $("home").hidden = false;
  $("play").hidden = true;
  await drawCards();
  fillLevels($("bot"));
  fillOptions();
  for (const radio of document.querySelectorAll("input[name=mode]")) radio.onchange = showModeFields;
  showModeFields();
  $("new-game").onsubmit = async (event) => {
    event.preventDefault();
    $("home-error").textContent = "";
    try { openGame(await createGame()); }
    catch (error) { $("home-error").textContent = t("home_error", {reason: sayError(error)}); }
  };
  // a worksheet of the chosen game in the page's language, a new set of positions each time
  $("worksheet-link").onclick = () => {
    const query = new URLSearchParams({questions: $("worksheet-questions").value,
      paper: $("worksheet-paper").value, language: currentLanguage(),
      seed: String(1 + Math.floor(Math.random() * 1e6))});
    $("worksheet-link").href = `/api/worksheets/${selectedGame()}?${query}`;
  };
  $("home-analysis").onclick = async () => {  // the analysis board of the chosen game
    $("home-error").textContent = "";
    try {
      openGame(await api("/api/games", {game: selectedGame(), options: optionValues(),
                                        mode: "local", helpers: true}),
               {analyse: true, edit: true});
    } catch (error) { $("home-error").textContent = t("home_error", {reason: sayError(error)}); }
  };
  $("record-file").onchange = async () => {
    const file = $("record-file").files[0];
    $("record-games").hidden = true;
    if (!file) return;
    try {
      const record = await file.text();
      const {games} = await api("/api/records/contents", {record});
      if (games.length === 1) { await loadRecord(openGame, record, null); return; }
      chooseGame(openGame, record, games);  // a tournament's file: the person picks one
    } catch (error) { $("home-error").textContent = t("home_error", {reason: sayError(error)}); }
  };
}

async function loadRecord(openGame, record, game) {
  openGame(await api("/api/games/load", {record, game, mode: mode(), bot: $("bot").value,
    human_seat: Number($("seat").value), automove: $("automove").checked}));
}

// A file of several games: a menu of them (from their headers, read by the server)
function chooseGame(openGame, record, games) {
  const menu = $("record-game");
  menu.replaceChildren(new Option(t("record_choose"), ""));
  for (const game of games) {
    menu.append(new Option(t("record_game", {number: game.number, a: game.names[0],
      b: game.names[1], moves: plural("record_moves", game.moves), result: game.result}), game.number));
  }
  $("record-games-text").textContent = t("record_games", {count: games.length});
  $("record-games").hidden = false;
  menu.onchange = async () => {
    if (!menu.value) return;
    try { await loadRecord(openGame, record, Number(menu.value)); }
    catch (error) { $("home-error").textContent = t("home_error", {reason: sayError(error)}); }
  };
}

// after a change of language: every word of the form again
export function retranslateHome() {
  if (!catalogue || $("home").hidden) return;
  const chosen = selectedGame();
  drawCards().then(() => {
    const radio = document.querySelector(`input[name=game][value="${chosen}"]`);
    if (radio) radio.checked = true;
  });
  const level = $("bot").value;
  fillLevels($("bot"));
  $("bot").value = level;
  fillOptions();
}

export function fillLevels(select) {
  const wanted = select.value;
  select.replaceChildren();
  for (const level of Object.keys(catalogue.levels)) select.add(new Option(levelName(level), level));
  const others = Object.assign(document.createElement("optgroup"), {label: t("players_other")});
  for (const name of catalogue.players) {
    const option = new Option(levelName(name), name);
    const detail = t(`player_${name}_detail`);  // the engine's own name, for those who ask
    if (detail !== `player_${name}_detail`) option.title = detail;
    others.append(option);
  }
  if (others.childElementCount) select.append(others);
  select.value = wanted && [...select.options].some((o) => o.value === wanted) ? wanted : "medium";
}

export function selectedGame() {
  const checked = document.querySelector("input[name=game]:checked");
  return checked ? checked.value : "gebeta";
}

function mode() {
  return document.querySelector("input[name=mode]:checked").value;
}

async function drawCards() {
  const box = $("game-cards");
  const chosen = box.childElementCount ? selectedGame() : "gebeta";
  box.replaceChildren();
  for (const game of Object.keys(catalogue.games)) {
    const card = document.createElement("label");
    card.className = "card";
    const radio = document.createElement("input");
    Object.assign(radio, {type: "radio", name: "game", value: game, checked: game === chosen});
    radio.onchange = fillOptions;
    const picture = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    picture.setAttribute("aria-hidden", "true");
    const title = Object.assign(document.createElement("span"), {className: "title",
                                                                   textContent: gameName(game)});
    const origin = Object.assign(document.createElement("span"), {className: "origin",
      textContent: t(`game_${game}_origin`)});
    const line = Object.assign(document.createElement("span"), {className: "line",
      textContent: t(`game_${game}_line`)});
    card.append(radio, picture, title, origin, line);
    box.append(card);
    // the start as the catalogue draws it: no compiled rule is waited for
    drawBoard(picture, catalogue.games[game].picture, {view: 0, playable: new Set(), reader: 0,
                                                       names: null, picture: true});
  }
}

// Each option of the chosen game as a control its value calls for, with a plain label and a
// line of help; the options that change the game's nature are under "More options".
function fillOptions() {
  const game = selectedGame();
  $("home-puzzles").hidden = !catalogue.games[game].puzzles;  // only where puzzles ship
  const box = $("options");
  box.replaceChildren();
  for (const [name, option] of Object.entries(catalogue.games[game].options)) {
    box.append(optionControl(name, option));
  }
  $("setup-row").hidden = !catalogue.games[game]?.setting;
  translatePage($("options"));
}

function optionControl(name, option) {
  const wrap = document.createElement("div");
  wrap.className = "option";
  const label = document.createElement("label");
  const text = Object.assign(document.createElement("span"), {textContent: t(`option_${name}`)});
  let control;
  if (option.kind === "bool") {
    control = Object.assign(document.createElement("input"), {type: "checkbox",
                                                              checked: option.default});
    label.classList.add("check");
    label.append(control, text);
  } else if (option.kind === "choice" || option.kind === "choice_or_number") {
    control = document.createElement("select");
    for (const value of option.choices) control.add(new Option(t(`choice_${value}`), value));
    label.append(text, control);
    if (option.kind === "choice_or_number") {
      control.add(new Option(t("choice_number"), "number"));
      const number = Object.assign(document.createElement("input"), {type: "number",
        min: option.min, max: option.max, value: option.min, hidden: true});
      number.dataset.numberFor = name;
      number.setAttribute("aria-label", t(`option_${name}`));
      control.onchange = () => { number.hidden = control.value !== "number"; };
      label.append(number);
    }
    control.value = String(option.default);
  } else {
    control = Object.assign(document.createElement("input"), {
      type: option.kind === "number" ? "number" : "text", value: option.default ?? ""});
    if (option.min !== null) control.min = option.min;
    if (option.max !== null) control.max = option.max;
    label.append(text, control);
  }
  control.dataset.option = name;
  control.dataset.default = String(option.default);
  const help = Object.assign(document.createElement("span"), {className: "help",
                                                              textContent: t(`option_${name}_help`)});
  wrap.append(label, help);
  return wrap;
}

function optionValues() {
  const options = {};
  for (const control of document.querySelectorAll("#options [data-option]")) {
    let value = control.type === "checkbox" ? control.checked : control.value;
    if (value === "number") {
      value = document.querySelector(`[data-number-for="${control.dataset.option}"]`).value;
    }
    if (String(value) !== control.dataset.default && value !== "") {
      options[control.dataset.option] = control.type === "number" ? Number(value) : value;
    }
  }
  return options;
}

function showModeFields() {
  const chosen = mode();
  $("computer-options").hidden = chosen !== "computer";
  $("online-options").hidden = chosen !== "online";
}

async function createGame() {
  const game = selectedGame();
  const chosen = mode();
  const seat = Number($("seat").value);
  const names = defaultNames(chosen, seat);
  return api("/api/games", {
    game, options: optionValues(), mode: chosen, bot: $("bot").value,
    automove: $("automove").checked, human_seat: chosen === "computer" ? seat : 0, names,
    setup: Boolean(catalogue.games[game]?.setting) && $("setup").checked,
    helpers: chosen === "online" ? $("helpers").checked : null,
    clock: chosen === "computer" && $("game-clock").value ? JSON.parse($("game-clock").value)
      : null});
}

// Names a family understands: the typed ones, else "first player" and "second player" (the
// computer's seat is named by the server).
function defaultNames(chosen, seat) {
  const typed = [$("name-a").value.trim(), $("name-b").value.trim()];
  const names = [typed[0] || t("name_a"), typed[1] || t("name_b")];
  if (chosen === "computer") names[seat] = typed[0] || t("you");
  return names.map((name) => name.slice(0, 40));
}
