// Playing with the world: an account (optional), the lobby's seeks, and player profiles.
// The server decides everything (who may take a seek, ratings, clocks); this draws it.
import {gameName, selectedGame} from "./home.js";
import {showMyGames} from "./mine.js";
import {api, follow, send} from "./server.js";
import {plural, sayError, t} from "./texts.js";

const $ = (id) => document.getElementById(id);
// [base, increment] seconds, or [seconds a move, 0, true]: correspondence
const CLOCKS = [null, [180, 2], [300, 3], [600, 5], [900, 10], [86400, 0, true],
                [3 * 86400, 0, true]];
const POLL = 5000;  // ms between looks at the lobby while its socket is away
let account = null;
let open = null;  // this browser's own open seek: {id, secret}
let polling = null;
let lobbySocket = null;  // the lobby's pushed updates (startLobby)
let openGame = null;
let following = null;  // the arena this browser's player joined: its id
let arenaPoll = null;  // the pushed updates of the arena joined from the home page
let lastArenaGame = null;

export function clockText(clock) {
  if (!clock) return t("clock_none");
  const [base, increment, perMove] = Array.isArray(clock) ? clock
    : [clock.base, clock.increment, clock.per_move];
  if (perMove) return plural("days_a_move", Math.round(base / 86400));
  return `${Math.round(base / 60)}+${increment}`;
}

function showAccount() {
  $("arena-form").hidden = !account;
  $("account").hidden = Boolean(account);
  $("account-in").hidden = !account;
  $("account-who").textContent = account ? t("logged_in_as", {name: account}) : "";
  $("seek-rated").disabled = !account;
  if (!account) $("seek-rated").checked = false;
  $("challenge-form").hidden = !account;
  if (!account) $("challenges").hidden = true;
  import("./classroom.js").then((classroom) => classroom.showClasses(account));
}

async function enter(path) {
  $("world-error").textContent = "";
  try {
    const answer = await send(path, "POST", {name: $("account-name").value,
                                             password: $("account-password").value});
    account = answer.name;
    $("account-password").value = "";
    showAccount();
    showMyGames();  // the account's games join this browser's
    refresh();  // and its seeks
  } catch (error) { $("world-error").textContent = sayError(error); }
}

// The clocks a game against the computer may have: each option's value is the clock the
// server takes, as JSON ("" for none).
function fillGameClocks() {
  const select = $("game-clock");
  const chosen = select.value;
  select.replaceChildren(...CLOCKS.filter((c) => !c || !c[2]).map((clock) => new Option(
    clockText(clock), clock ? JSON.stringify({base: clock[0], increment: clock[1]}) : "")));
  select.value = chosen;
}

function fillClocks() {
  fillGameClocks();
  for (const [id, clocks] of [["seek-clock", CLOCKS],
                              ["arena-clock", CLOCKS.filter((c) => c && !c[2])]]) {
    const select = $(id);
    const chosen = select.value;
    select.replaceChildren(...clocks.map((clock) => new Option(clockText(clock),
                                                               String(CLOCKS.indexOf(clock)))));
    if (chosen) select.value = chosen;
  }
}

// ----- arenas: a list to join; once joined, every next game opens by itself -------------
async function refreshArenas() {
  try { showArenas((await api("/api/arenas")).arenas); } catch { /* the next time */ }
}

// The arenas going on and just finished (pushed with the lobby; their minutes left counted
// down between pushes from the last list).
let lastArenas = [];
function showArenas(arenas) {
  lastArenas = arenas;
  $("arena-list").replaceChildren(...arenas.map((arena) => {
    const item = document.createElement("li");
    const minutes = Math.max(0, Math.ceil((arena.ends_at * 1000 - Date.now()) / 60000));
    const when = arena.finished ? t("arena_over", {name: arena.winner || "—"})
      : arena.running ? plural("arena_ends_in", minutes) : t("arena_last_games");
    item.append(Object.assign(document.createElement("span"), {textContent:
      `${gameName(arena.game)} ${clockText(arena.clock)} · ${plural("players_count",
        arena.standings.length)} · ${when}`}));
    const inIt = arena.standings.some((row) => row.name === account && row.present);
    const button = Object.assign(document.createElement("button"), {type: "button",
      textContent: t(arena.running && account && !inIt ? "join" : "standings")});
    button.onclick = () => (arena.running && account && !inIt ? join(arena.id)
      : goToArena(arena.id));
    item.append(button);
    return item;
  }));
}

function showArena(arena) {
  $("arena-view").hidden = false;
  $("arena-title").textContent = `${gameName(arena.game)} ${clockText(arena.clock)}`;
  $("arena-standings").replaceChildren(...arena.standings.map((row) => Object.assign(
    document.createElement("li"), {textContent: `${row.name} · ${plural("points", row.points)}`})));
  $("arena-leave").hidden = following !== arena.id || !arena.running;
}

// An arena's own page (/?arena=ID): its clock, standings, games going on and a link to
// share; joining there pairs at once, and each next game opens by itself.
let arenaPage = null;  // the arena whose page is shown: {id, arena, timer, socket}

export function goToArena(arenaId) {
  history.pushState({}, "", `/?arena=${encodeURIComponent(arenaId)}`);
  showArenaPage(arenaId);
}

export async function showArenaPage(arenaId, back = () => { location.href = "/"; },
                                    opened = null) {
  if (opened) openGame = opened;
  try { account = (await api("/api/session")).name; } catch { account = null; }
  stopLobby();
  $("home").hidden = true;
  $("play").hidden = true;
  $("arena-page").hidden = false;
  $("arena-link").value = `${location.origin}/?arena=${encodeURIComponent(arenaId)}`;
  $("arena-back").onclick = () => { leaveArenaPage(); back(); };
  $("arena-join").onclick = () => join(arenaId);
  $("arena-withdraw").onclick = async () => {
    await send(`/api/arenas/${arenaId}/leave`, "POST").catch(() => null);
    following = null;
  };
  leaveArenaPage();
  // pushed on every change, in a game too: the next game of its player opens by itself;
  // asked for while the socket is away
  arenaPage = {
    id: arenaId, arena: null, timer: setInterval(showArenaTime, 1000),
    socket: follow(`/api/arenas/${encodeURIComponent(arenaId)}/ws`, {
      onMessage: (message) => { if (message.type === "arena") drawArena(message.arena); },
      onLine: (connected) => { if (!connected) drawArenaPage(arenaId); },
    }),
  };
}

function leaveArenaPage() {
  if (!arenaPage) return;
  clearInterval(arenaPage.timer);
  arenaPage.socket.close();
  arenaPage = null;
}

async function drawArenaPage(arenaId) {
  try { drawArena(await api(`/api/arenas/${arenaId}`)); }
  catch (error) { $("arena-page-error").textContent = sayError(error); }
}

// The arena's time left, counted down on the page between the server's pushes.
function showArenaTime() {
  const arena = arenaPage && arenaPage.arena;
  if (!arena) return;
  const left = Math.max(0, Math.ceil(arena.ends_at - Date.now() / 1000));
  $("arena-when").textContent = arena.finished ? t("arena_over", {name: arena.winner || "—"})
    : left > 0 ? t("arena_time_left", {time: `${Math.floor(left / 60)}:${
      String(left % 60).padStart(2, "0")}`}) : t("arena_last_games");
}

function drawArena(arena) {
  if (arenaPage) arenaPage.arena = arena;
  $("arena-page-error").textContent = "";
  $("arena-page-title").textContent = `${t("arena")} · ${gameName(arena.game)} ${
    clockText(arena.clock)}`;
  showArenaTime();
  $("arena-page-standings").replaceChildren(...arena.standings.map((row, rank) => {
    const line = document.createElement("tr");
    const name = row.name + (row.playing ? " ●" : "") + (row.present ? "" : ` (${t("withdrawn")})`);
    line.append(...[String(rank + 1), name, String(row.points), String(row.games)].map(
      (text) => Object.assign(document.createElement("td"), {textContent: text})));
    return line;
  }));
  $("arena-pairings").replaceChildren(...arena.pairings.map((pairing) => {
    const item = document.createElement("li");
    item.append(Object.assign(document.createElement("a"), {href: `/?game=${pairing.game_id}`,
      textContent: pairing.names.join(" – ")}));
    return item;
  }));
  const me = arena.me;
  $("arena-join").hidden = !account || !arena.running || Boolean(me && me.present);
  $("arena-join").textContent = t(me ? "rejoin" : "join");
  $("arena-withdraw").hidden = !me || !me.present || !arena.running;
  if (me && me.game_id && me.game_id !== lastArenaGame) {  // the next game opens by itself
    lastArenaGame = me.game_id;
    following = arena.id;
    play(me.game_id, me.token);
  }
}

async function join(arenaId) {
  $("world-error").textContent = "";
  try {
    showArena(await send(`/api/arenas/${arenaId}/join`, "POST"));
    following = arenaId;
    if (arenaPoll) arenaPoll.close();
    arenaPoll = follow(`/api/arenas/${encodeURIComponent(arenaId)}/ws`, {
      onMessage: (message) => { if (message.type === "arena") followArena(message.arena); },
    });
  } catch (error) { $("world-error").textContent = sayError(error); }
}

// The arena joined from the home page, as pushed: its standings, and the player's next game
// opened by itself.
function followArena(arena) {
  if (!$("home").hidden) showArena(arena);
  const me = arena.me;
  if (me && me.game_id && me.game_id !== lastArenaGame) {
    lastArenaGame = me.game_id;
    play(me.game_id, me.token);
  }
  if (arena.finished && arenaPoll) { arenaPoll.close(); arenaPoll = null; following = null; }
}

async function openArena(event) {
  event.preventDefault();
  const clock = CLOCKS[Number($("arena-clock").value)] || CLOCKS[1];
  try {
    const arena = await send("/api/arenas", "POST", {
      game: selectedGame(), clock: {base: clock[0], increment: clock[1]},
      seconds: 60 * Number($("arena-minutes").value)});
    await join(arena.id);
    refreshArenas();
  } catch (error) { $("world-error").textContent = sayError(error); }
}

async function seek(event, to = null) {
  if (event) event.preventDefault();
  $("world-error").textContent = "";
  const clock = CLOCKS[Number($("seek-clock").value)];
  try {
    const made = await send("/api/seeks", "POST", {
      game: $("seek-game").value || selectedGame(), rated: $("seek-rated").checked,
      color: $("seek-color").value,
      clock: clock ? {base: clock[0], increment: clock[1], per_move: Boolean(clock[2])} : null,
      ...(to ? {to} : {})});
    open = {id: made.id, secret: made.secret};
    showWaiting(made.seek);
    refresh();
  } catch (error) { $("world-error").textContent = sayError(error); }
}

// A seek of this player's, waiting: for anybody, or (a challenge) for one player.
function showWaiting(seekShown) {
  $("seek-waiting-text").textContent = seekShown.to
    ? t("challenge_waiting", {name: seekShown.to, game: gameName(seekShown.game)})
    : t("seeking", {game: gameName(seekShown.game)});
  $("seek-waiting").hidden = false;
}

// Challenges: a seek for one player (the seek form's game, clock, seat and rating), seen
// live by that player alone, who takes it or declines it saying why.
function challenge(event) {
  event.preventDefault();
  const name = $("challenge-name").value.trim();
  if (name) seek(null, name);
}

const DECLINE_REASONS = ["generic", "later", "clock", "rated", "casual", "game"];

async function refreshChallenges() {
  if (!account) return;
  let found = [];
  try { found = (await api("/api/session/challenges")).challenges; } catch { return; }
  $("challenges").hidden = found.length === 0;
  $("challenge-list").replaceChildren(...found.map((c) => {
    const item = document.createElement("li");
    const terms = [gameName(c.game), clockText(c.clock), t(c.rated ? "rated" : "casual")];
    const text = Object.assign(document.createElement("span"), {
      textContent: t("challenged_by", {name: c.by, terms: terms.join(" · ")})});
    const take = Object.assign(document.createElement("button"), {
      type: "button", className: "primary", textContent: t("accept")});
    take.onclick = () => accept(c.id);
    const why = document.createElement("select");
    why.setAttribute("aria-label", t("decline_why"));
    for (const reason of DECLINE_REASONS) why.add(new Option(t(`decline_${reason}`), reason));
    const refuse = Object.assign(document.createElement("button"), {
      type: "button", textContent: t("decline")});
    refuse.onclick = async () => {
      try { await send(`/api/seeks/${c.id}/decline`, "POST", {reason: why.value}); }
      catch (error) { $("world-error").textContent = sayError(error); }
      refreshChallenges();
    };
    item.append(text, " ", take, " ", why, " ", refuse);
    return item;
  }));
}

// Quick pairing: take an open seek of the chosen game with this clock, or open one.
async function quick(clock) {
  $("world-error").textContent = "";
  const game = selectedGame();
  let seeks = [];
  try { seeks = (await api("/api/seeks")).seeks; } catch { /* open one */ }
  const same = seeks.find((s) => s.game === game && s.clock && !s.rated &&
    s.clock.base === clock[0] && s.clock.increment === clock[1] && (!open || s.id !== open.id));
  if (same) { accept(same.id); return; }
  $("seek-clock").value = String(CLOCKS.indexOf(clock));
  $("seek-rated").checked = false;
  $("seek-color").value = "random";
  await seek(new Event("submit"));
}

function fillQuick() {
  const buttons = CLOCKS.filter((c) => c && !c[2]).slice(0, 3).map((clock) => {
    const button = Object.assign(document.createElement("button"), {type: "button",
                                                                    textContent: clockText(clock)});
    button.onclick = () => quick(clock);
    return button;
  });
  $("quick").replaceChildren($("quick").firstElementChild, ...buttons);
}

async function refreshLive() {
  try { showLive((await api("/api/live")).games); } catch { /* the next time */ }
}

// The live games, each link kept while its game is listed and its words changed in place: a
// list made again at every pushed move took the link from under a finger or a click.
function showLive(games) {
  const list = $("live-list");
  const shown = [...list.children];
  const kept = new Map(shown.map((item) => [item.dataset.game, item]));
  const items = games.map((g) => {
    const item = kept.get(g.id) ?? document.createElement("li");
    item.dataset.game = g.id;
    const link = item.firstElementChild ?? item.appendChild(document.createElement("a"));
    link.href = `/?game=${g.id}`;
    const words = `${gameName(g.game)} · ${g.names[0]} – ${g.names[1]} · ${plural("moves_count", g.ply)}`;
    if (link.textContent !== words) link.textContent = words;
    return item;
  });
  if (items.length !== shown.length || items.some((item, i) => item !== shown[i])) {
    list.replaceChildren(...items);
  }
  list.previousElementSibling.hidden = games.length === 0;
}

async function cancel() {
  if (!open) return;
  try { await send(`/api/seeks/${open.id}?secret=${encodeURIComponent(open.secret)}`, "DELETE"); }
  catch { /* taken or gone meanwhile */ }
  open = null;
  $("seek-waiting").hidden = true;
  refresh();
}

function play(id, token) {
  stopLobby();
  $("arena-page").hidden = true;
  openGame({id, token, links: {play: `/?game=${id}&token=${encodeURIComponent(token)}`}});
}

async function accept(seekId) {
  $("world-error").textContent = "";
  try {
    const game = await send(`/api/seeks/${seekId}/accept`, "POST");
    play(game.id, game.token);
  } catch (error) { $("world-error").textContent = sayError(error); refresh(); }
}

// The visitor's seeks are theirs (the account's, or a guest cookie's), on every page they
// have open: one made on another page (or before a reload) is shown here and may be
// cancelled here, and one taken while no page was open opens its game on the next page.
async function adoptMySeeks() {
  let mine = [];
  try { mine = (await api("/api/session/seeks")).seeks; } catch { return false; }
  const declined = mine.find((s) => s.declined);
  if (declined) {
    if (open && open.id === declined.id) { open = null; $("seek-waiting").hidden = true; }
    $("world-error").textContent = t("challenge_declined", {
      name: declined.to, reason: t(`decline_${declined.declined}`)});
  }
  const taken = mine.find((s) => s.game_id && !localStorage.getItem(`mancalab.seek.${s.id}`));
  if (taken) {  // opened once, by the first of her pages to see it
    localStorage.setItem(`mancalab.seek.${taken.id}`, taken.game_id);
    open = null;
    $("seek-waiting").hidden = true;
    play(taken.game_id, taken.token);
    return true;
  }
  const waiting = mine.find((s) => !s.game_id && !s.declined);
  if (waiting && !open) {
    open = {id: waiting.id, secret: waiting.secret};
    showWaiting(waiting);
  }
  return false;
}

// The account's own seeks and challenges, and this browser's open seek: taken? then the
// game starts here too.
async function refreshMine() {
  if (await adoptMySeeks()) return true;
  refreshChallenges();
  if (!open) return false;
  try {
    const mine = await api(`/api/seeks/${open.id}?secret=${encodeURIComponent(open.secret)}`);
    if (mine.game_id) {
      const {game_id: id, token} = mine;
      localStorage.setItem(`mancalab.seek.${open.id}`, id);
      open = null;
      play(id, token);
      return true;
    }
  } catch { open = null; $("seek-waiting").hidden = true; }
  return false;
}

// Everything the home page shows of the world, asked for (while the lobby's socket is away).
async function refresh() {
  if (await refreshMine()) return;
  try { showSeeks((await api("/api/seeks")).seeks); } catch { return; }
  refreshArenas();
  refreshLive();
}

function showSeeks(seeks) {
  const rows = seeks.filter((s) => (!open || s.id !== open.id) && (!account || s.by !== account))
    .map((s) => {
    const row = document.createElement("tr");
    const by = s.bot ? `${t("bot_tag")} ${s.by}` : s.by;
    const cells = [gameName(s.game), s.rating ? `${by} (${s.rating})` : by,
                   clockText(s.clock), t(s.rated ? "rated" : "casual")];
    row.append(...cells.map((text) => Object.assign(document.createElement("td"),
                                                    {textContent: text})));
    const button = Object.assign(document.createElement("button"), {type: "button",
                                                                    textContent: t("play_seek")});
    button.setAttribute("aria-label", `${t("play_seek")}: ${cells.join(", ")}`);
    button.onclick = () => accept(s.id);
    const action = document.createElement("td");
    action.append(button);
    row.append(action);
    return row;
  });
  $("seeks-body").replaceChildren(...rows);
  $("seeks").hidden = rows.length === 0;
  $("no-seeks").hidden = rows.length > 0 || Boolean(open);  // not while one waits
}

// The lobby's socket: the server pushes the seeks and the games being played on every change
// (a seek taken among them: this browser's own is looked at then). Opened as the page starts
// (its first message kept until the home page is drawn); while it is away the page says so
// and asks instead (server.js follow opens it again).
let lastLobby = null;  // the lobby's last message

export function startLobby() {
  if (lobbySocket) return;
  const early = window.mancalabLobby;  // opened by early.js: taken once
  window.mancalabLobby = null;
  lobbySocket = follow("/api/lobby/ws", {
    onMessage: (message) => {
      if (message.type !== "lobby") return;
      lastLobby = message;
      if (openGame && !$("home").hidden) drawLobby(message);
    },
    onLine: (connected, attempt) => {
      $("lobby-offline").hidden = connected;
      if (!connected && attempt === 0 && openGame) refresh();  // asked for meanwhile
    },
  }, early);
}

function drawLobby(message) {
  showSeeks(message.seeks);
  showLive(message.live);
  showArenas(message.arenas);
  refreshMine();
}

export function stopLobby() {
  clearInterval(polling);
  polling = null;
  if (lobbySocket) lobbySocket.close();
  lobbySocket = null;
  lastLobby = null;
}

// The world's part of the home page; ``opened(created)`` opens a game that started.
export async function showWorld(opened) {
  openGame = opened;
  fillSeekGames();
  fillClocks();
  fillQuick();
  // the lobby's socket (its first message is the seeks, the games being played and the
  // arenas), open already on a first visit; who is logged in and this browser's own seeks
  // alongside
  clearInterval(polling);
  startLobby();
  if (lastLobby) drawLobby(lastLobby);
  const session = api("/api/session").then((answer) => answer.name).catch(() => null);
  refreshMine();
  account = await session;
  showAccount();
  if (account) { refreshMine(); showArenas(lastArenas); }  // "join" where it is not in
  // asked for only while the socket is away; the arenas' minutes left drawn again meanwhile
  polling = setInterval(() => {
    if ($("home").hidden) return;
    if (lobbySocket && lobbySocket.open) showArenas(lastArenas);
    else refresh();
  }, POLL);
}

// The seek form names its game (the card chosen far above it), and the two agree.
function fillSeekGames() {
  const select = $("seek-game");
  const games = [...document.querySelectorAll("input[name=game]")].map((input) => input.value);
  select.replaceChildren(...games.map((game) => new Option(gameName(game), game)));
  select.value = selectedGame();
}

export function retranslateWorld() {
  fillSeekGames();
  fillClocks();
  fillQuick();
  showAccount();
  if (!$("home").hidden) refresh();
}

// People's ratings, or (the Bots switch) the BOT accounts' board: they are rated apart.
async function showLeaderboard() {
  const game = selectedGame();
  const bots = $("leaderboard-bots").checked;
  let players = [];
  try { players = (await api(`/api/leaderboard/${game}${bots ? "?bots=true" : ""}`)).players; }
  catch { /* none */ }
  $("leaderboard-title").textContent = `${t("leaderboard")} · ${gameName(game)}`;
  $("leaderboard-list").replaceChildren(...players.map((p) => {
    const item = document.createElement("li");
    const name = Object.assign(document.createElement("button"), {type: "button",
      className: "link", textContent: p.name});
    name.onclick = () => { $("leaderboard-dialog").close(); showProfile(p.name); };
    item.append(name, ` ${Math.round(p.rating)}${p.provisional ? "?" : ""} · ${
      plural("games_count", p.games)}`);
    return item;
  }));
  $("leaderboard-empty").hidden = players.length > 0;
  $("leaderboard-dialog").showModal();
}

async function showProfile(name) {
  let profile;
  try { profile = await api(`/api/players/${encodeURIComponent(name)}`); }
  catch (error) { $("world-error").textContent = sayError(error); return; }
  $("profile-title").textContent = profile.name;
  $("profile-bot").hidden = !profile.bot;
  // a person challenges a player (a bot among them) from the profile: the seek form's terms
  $("profile-challenge").hidden = !account || account === profile.name;
  $("profile-challenge").onclick = () => {
    $("profile-dialog").close();
    seek(null, profile.name);
  };
  $("profile-ratings").replaceChildren(...Object.entries(profile.ratings).map(([game, r]) => {
    const row = document.createElement("tr");
    const rating = `${Math.round(r.rating)}${r.provisional ? "?" : ""}`;
    row.append(...[gameName(game), rating, String(r.games)].map((text) => Object.assign(
      document.createElement("td"), {textContent: text})));
    return row;
  }));
  $("profile-charts").replaceChildren(...Object.entries(profile.history).map(
    ([game, points]) => chart(game, points)));
  $("profile-recent").replaceChildren(...profile.recent.map((g) => {
    const item = document.createElement("li");
    const result = t(g.score === 1 ? "won" : g.score === 0 ? "lost" : "draw");
    const link = Object.assign(document.createElement("a"), {href: `/?game=${g.id}`,
      textContent: `${gameName(g.game)} · ${result} · ${g.opponent || "?"} · ${day(g.at)}`});
    item.append(link);
    return item;
  }));
  $("profile-dialog").showModal();
}

// A date as the reader's language writes it.
function day(seconds) {
  return new Date(seconds * 1000).toLocaleDateString(document.documentElement.lang || undefined);
}

// A game's rating history as a small SVG line (the rating after each rated game), with the
// lowest and highest ratings on its left and the first and last games' dates below.
function chart(game, points) {
  const svgNS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(svgNS, "svg");
  const width = 300, height = 80, left = 40, below = 16;
  svg.setAttribute("viewBox", `${-left} 0 ${width + left + 8} ${height + below}`);
  svg.setAttribute("role", "img");
  const ratings = points.map(([, rating]) => rating);
  const low = Math.min(...ratings) - 10, high = Math.max(...ratings) + 10;
  const x = (i) => points.length === 1 ? width / 2 : (i * width) / (points.length - 1);
  const y = (r) => height - ((r - low) / (high - low)) * height;
  const line = document.createElementNS(svgNS, "polyline");
  line.setAttribute("points", ratings.map((r, i) => `${x(i)},${y(r)}`).join(" "));
  line.setAttribute("class", "rating-line");
  svg.append(line, ...ratings.map((r, i) => {
    const dot = document.createElementNS(svgNS, "circle");
    for (const [name, value] of [["cx", x(i)], ["cy", y(r)], ["r", 4]]) dot.setAttribute(name, value);
    dot.setAttribute("class", "rating-dot");
    return dot;
  }));
  const label = (text, x0, y0, anchor) => {
    const node = document.createElementNS(svgNS, "text");
    for (const [name, value] of [["x", x0], ["y", y0], ["text-anchor", anchor]]) {
      node.setAttribute(name, value);
    }
    node.setAttribute("class", "chart-label");
    node.textContent = text;
    return node;
  };
  const top = Math.max(...ratings), bottom = Math.min(...ratings);
  svg.append(label(String(Math.round(top)), -6, y(top) + 4, "end"));
  if (bottom !== top) svg.append(label(String(Math.round(bottom)), -6, y(bottom) + 4, "end"));
  svg.append(label(day(points[0][0]), 0, height + below - 2, "start"));
  if (points.length > 1) {
    svg.append(label(day(points[points.length - 1][0]), width, height + below - 2, "end"));
  }
  svg.setAttribute("aria-label", t("rating_history", {game: gameName(game),
                                                      ratings: ratings.join(", ")}));
  const figure = document.createElement("figure");
  figure.append(Object.assign(document.createElement("figcaption"),
                              {textContent: `${gameName(game)} · ${plural("games_count", points.length)}`}), svg);
  return figure;
}

export function wireWorld() {
  $("account").onsubmit = (event) => { event.preventDefault(); enter("/api/session"); };
  $("sign-up").onclick = () => enter("/api/accounts");
  $("log-out").onclick = async () => {
    try { await send("/api/session", "DELETE"); } catch { /* logged out already */ }
    account = null;
    showAccount();
  };
  $("my-profile").onclick = () => showProfile(account);
  $("tokens-open").onclick = async () => (await import("./tokens.js")).openTokens();
  $("leaderboard-open").onclick = () => {
    $("leaderboard-bots").checked = false;
    showLeaderboard();
  };
  $("leaderboard-bots").onchange = showLeaderboard;
  $("leaderboard-close").onclick = () => $("leaderboard-dialog").close();
  $("profile-close").onclick = () => $("profile-dialog").close();
  $("seek-form").onsubmit = seek;
  document.addEventListener("change", (event) => {
    if (event.target.name === "game") $("seek-game").value = event.target.value;
  });
  $("seek-game").onchange = () => {
    const card = document.querySelector(`input[name=game][value=${$("seek-game").value}]`);
    if (card) { card.checked = true; card.dispatchEvent(new Event("change", {bubbles: true})); }
  };
  $("challenge-form").onsubmit = challenge;
  $("seek-cancel").onclick = cancel;
  $("arena-form").onsubmit = openArena;
  $("arena-leave").onclick = async () => {
    if (following) await send(`/api/arenas/${following}/leave`, "POST").catch(() => null);
    if (arenaPoll) arenaPoll.close();
    arenaPoll = null;
    following = null;
    $("arena-leave").hidden = true;
  };
}
