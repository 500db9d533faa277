// mancalab in the browser: the page draws what the server sends; every rule is the server's.
import {retranslateHome, selectedGame, showHome, useCatalogue} from "./home.js";
import {remember, showMyGames} from "./mine.js";
import {createFromPosition, readPositionLink} from "./position.js";
import {api} from "./server.js";
import {setSound, soundOn} from "./sound.js";
import {retranslateWorld, showArenaPage, showWorld, startLobby, stopLobby,
        wireWorld} from "./world.js";
import {onLanguage, preferredLanguage, sayError, setLanguage, t} from "./texts.js";

// The pages beyond the home page come when first wanted, and are fetched once the home
// page is shown: on a school's slow link the lobby is not kept waiting for them.
const LATER = {
  play: () => import("./play.js"),
  classroom: () => import("./classroom.js"),
  puzzles: () => import("./puzzles.js"),
  exercises: () => import("./exercises.js"),
  lessons: () => import("./lessons.js"),
  rules: () => import("./rules.js"),
};
let play = null;  // play.js once loaded: the open game is drawn again in a new language

async function openGame(...args) {
  play = await LATER.play();
  play.openGame(...args);
}

function fetchTheRest() {
  for (const load of Object.values(LATER)) load().catch(() => {});  // again when wanted
}

const $ = (id) => document.getElementById(id);

function useDesign(design) {
  document.documentElement.dataset.design = design;
  localStorage.setItem("mancalab.design", design);
}

// Open a game just created; ``how``: {analyse, edit} (the analysis board).
function openCreated(created, how = {}) {
  localStorage.setItem(`mancalab.token.${created.id}`, created.token);
  if (created.links.invite) {
    localStorage.setItem(`mancalab.invite.${created.id}`, location.origin + created.links.invite);
  }
  history.pushState({}, "", created.links.play);
  stopLobby();
  remember(created.id, created.token);
  openGame(catalogue, created.id, created.token, {...how, opened: openCreated});
}

let catalogue = null;

async function learn(game) {
  history.pushState({}, "", `/?learn=${game}`);
  (await LATER.lessons()).showLesson(game, backHome);
}

async function backHome() {
  history.pushState({}, "", "/");
  $("arena-page").hidden = true;
  $("class-page").hidden = true;
  $("tournament-page").hidden = true;
  $("puzzle").hidden = true;
  $("lesson").hidden = true;
  $("exercise").hidden = true;
  await showHome(openCreated);
  showMyGames();
  showWorld(openCreated);
}

// Every Copy button (data-copy: the id of the field it copies) copies and says so.
function wireCopyButtons() {
  document.addEventListener("click", async (event) => {
    const button = event.target.closest("[data-copy]");
    if (!button) return;
    const field = $(button.dataset.copy);
    field.select();
    try { await navigator.clipboard.writeText(field.value); }
    catch { document.execCommand("copy"); }  // an insecure origin: no clipboard API
    button.textContent = t("copied");
    setTimeout(() => { button.textContent = t("copy"); }, 2000);
  });
}

async function main() {
  const params = new URLSearchParams(location.search);
  if (![...params.keys()].length) startLobby();  // the home page: its seeks are on their way
  // the texts and the games' catalogue come at once (each is a round trip on a slow link)
  const texts = setLanguage(preferredLanguage());
  catalogue = await api("/api/games");
  wireCopyButtons();
  useCatalogue(catalogue);
  const select = $("language");
  for (const [code, name] of Object.entries(catalogue.languages)) select.add(new Option(name, code));
  select.value = preferredLanguage();
  select.onchange = () => setLanguage(select.value);
  $("design").value = localStorage.getItem("mancalab.design") || "wood";
  useDesign($("design").value);
  $("design").onchange = () => useDesign($("design").value);
  $("sound").setAttribute("aria-pressed", String(soundOn()));
  $("sound").onclick = () => {
    setSound(!soundOn());
    $("sound").setAttribute("aria-pressed", String(soundOn()));
  };
  await texts;
  onLanguage(() => { retranslateHome(); retranslateWorld(); play?.rerender(); });
  wireWorld();
  LATER.classroom().then((classroom) => classroom.wireClasses(Object.keys(catalogue.games)));
  const showRules = async (game) => (await LATER.rules()).showRules(game, learn);
  $("rules").onclick = () => showRules(play.currentGame().game);
  $("home-rules").onclick = () => showRules(
    document.querySelector("input[name=game]:checked").value);
  const game = params.get("game");
  const position = readPositionLink(params);
  const puzzles = params.get("puzzles");
  const learning = params.get("learn");
  const practising = params.get("exercises");
  $("home-learn").onclick = () => learn(selectedGame());
  const showExercises = async (game) => (await LATER.exercises()).showExercises(game, backHome);
  const showPuzzles = async (game) => (await LATER.puzzles()).showPuzzles(game, backHome);
  $("home-exercises").onclick = () => {
    history.pushState({}, "", `/?exercises=${selectedGame()}`);
    showExercises(selectedGame());
  };
  $("home-puzzles").onclick = () => {
    history.pushState({}, "", `/?puzzles=${selectedGame()}`);
    showPuzzles(selectedGame());
  };
  if (game) {
    // a link without a token: the logged-in player's own seat, from any device
    const token = params.get("token") || localStorage.getItem(`mancalab.token.${game}`) ||
      await api(`/api/games/${game}/seat`).then((seat) => seat.token).catch(() => null);
    remember(game, token);
    openGame(catalogue, game, token, {opened: openCreated});
  } else if (params.get("arena")) {
    showArenaPage(params.get("arena"), backHome, openCreated);
  } else if (params.get("class")) {
    (await LATER.classroom()).showClassPage(params.get("class"), backHome);
  } else if (params.get("tournament")) {
    (await LATER.classroom()).showTournamentPage(params.get("tournament"), backHome);
  } else if (learning) {
    (await LATER.lessons()).showLesson(learning, backHome);
  } else if (practising) {
    showExercises(practising);
  } else if (puzzles) {
    showPuzzles(puzzles);
  } else if (position) {  // a shared position: a new analysis board of it
    try { openCreated(await createFromPosition(position), {analyse: true}); }
    catch (error) { await showHome(openCreated); $("home-error").textContent = sayError(error); }
  } else {
    await showHome(openCreated);
    showMyGames();
    showWorld(openCreated);
  }
  fetchTheRest();
}

main();
