// My games: the games this browser holds a seat in (their tokens kept in this browser, no
// account), newest first, with the opponent, the game and how it stands; resume or remove.
import {api} from "./server.js";
import {t} from "./texts.js";

const KEY = "mancalab.games";
const KEPT = 50;

function kept() {
  try { return JSON.parse(localStorage.getItem(KEY)) || []; } catch { return []; }
}

export function remember(id, token) {
  if (!token) return;
  const games = kept().filter((game) => game.id !== id);
  games.unshift({id, token, seen: Date.now()});
  localStorage.setItem(KEY, JSON.stringify(games.slice(0, KEPT)));
}

function forget(id) {
  localStorage.setItem(KEY, JSON.stringify(kept().filter((game) => game.id !== id)));
  localStorage.removeItem(`mancalab.token.${id}`);
}

// The logged-in account's games join this browser's (a player's seats are the account's:
// her games on another device are hers here too).
async function addAccountGames() {
  let games = [];
  try { games = (await api("/api/session/games")).games; } catch { return; }
  const known = new Set(kept().map((game) => game.id));
  for (const game of games.reverse()) {
    if (!known.has(game.id)) remember(game.id, game.token);
    localStorage.setItem(`mancalab.token.${game.id}`, game.token);
  }
}

export async function showMyGames() {
  await addAccountGames();
  const games = kept();
  const list = document.getElementById("my-games-list");
  document.getElementById("my-games").hidden = games.length === 0;
  const rows = await Promise.all(games.slice(0, 20).map(async (game) => {
    try {
      return [game, await api(`/api/games/${game.id}?token=${encodeURIComponent(game.token)}`)];
    } catch { return [game, null]; }
  }));
  // the games waiting for this player's move first, correspondence (a day a move) first
  const waits = (state) => state.mode === "online" && state.seat !== null && state.started &&
    !state.result && state.to_move === state.seat;
  const urgency = ([, state]) => (waits(state) ? (state.clock?.per_move ? 0 : 1) : 2);
  const shown = rows.filter(([, state]) => state).sort((a, b) => urgency(a) - urgency(b));
  const waiting = shown.filter(([, state]) => waits(state)).length;
  document.title = waiting ? `(${waiting}) mancalab` : "mancalab";
  list.replaceChildren(...shown.map(([game, state]) => {
    const item = document.createElement("li");
    const seat = state.seat;
    const opponent = state.local ? t("mode_local")
      : state.mode === "computer" ? `${t("computer")} (${state.bot})`
      : state.names[seat === null ? 1 : 1 - seat];
    const standing = waits(state) ? t("your_turn")
      : !state.result ? t("game_running", {count: state.ply})
      : state.result.kind === "win"
        ? (state.result.winner === seat && !state.local ? t("you_win")
           : t("wins", {name: state.names[state.result.winner]}))
        : t(state.result.kind === "draw" ? "draw" : "timeout");
    const link = Object.assign(document.createElement("a"), {
      href: `/?game=${game.id}&token=${encodeURIComponent(game.token)}`,
      textContent: `${t(`game_${state.game}`)} · ${opponent}`});
    const status = Object.assign(document.createElement("span"), {
      className: waits(state) ? "standing your-move" : "standing", textContent: standing});
    const remove = Object.assign(document.createElement("button"), {type: "button",
                                                                    textContent: t("remove")});
    remove.setAttribute("aria-label", `${t("remove")}: ${link.textContent}`);
    remove.onclick = () => { forget(game.id); item.remove(); };
    item.append(link, status, remove);
    return item;
  }));
}
