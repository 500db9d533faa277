// The analysis board: set up any position of a game (the count of every hole and store, the
// player to move), play on from it with every move's exact value shown, and share it as a
// link. The server checks the position (its rules); the page only lays out the inputs.
import {api} from "./server.js";
import {sayError, t} from "./texts.js";

const $ = (id) => document.getElementById(id);

// A link that opens ``state``'s position (with its game's options) on the analysis board.
export function positionLink(state) {
  const query = new URLSearchParams({position: state.game, cells: state.cells.join(","),
                                     to: String(state.to_move)});
  if (Object.keys(state.options || {}).length) query.set("options", JSON.stringify(state.options));
  return `${location.origin}/?${query}`;
}

// The position a link names, or null: {game, options, cells, to_move}.
export function readPositionLink(params) {
  const game = params.get("position");
  if (!game) return null;
  let options = {};
  try { options = JSON.parse(params.get("options") || "{}"); } catch { options = {}; }
  const cells = (params.get("cells") || "").split(",").map(Number);
  return {game, options, cells, to_move: Number(params.get("to") || 0)};
}

// A local game with hints and exact values, from ``position``: the server's answer.
export function createFromPosition(position) {
  return api("/api/games", {game: position.game, options: position.options, mode: "local",
                            helpers: true, position: {cells: position.cells,
                                                      to_move: position.to_move}});
}

// The editor: ``state``'s holes as number inputs where the board has them (the first
// player's side at the bottom), the player to move, and Analyse. ``onCreated(created)`` with
// the new game; the server's refusal (counts that do not add up) is shown in the dialog.
export function editPosition(state, names, onCreated) {
  const dialog = $("position-dialog");
  const grid = $("position-cells");
  grid.style.gridTemplateColumns = `repeat(${state.grid[0].length}, minmax(0, 1fr))`;
  grid.replaceChildren();
  const inputs = {};
  for (const row of state.grid) {  // as the first player sees the board: theirs at the bottom
    for (const cell of row) {
      if (cell === null) { grid.append(document.createElement("span")); continue; }
      const input = Object.assign(document.createElement("input"), {type: "number", min: 0,
        max: 999, value: state.cells[cell], inputMode: "numeric"});
      input.classList.add(`owner${state.owners[cell]}`);
      const label = state.labels[state.owners[cell] ?? 0][cell];
      input.setAttribute("aria-label", t("position_cell", {
        owner: names[state.owners[cell]] ?? "", label: label || t("store")}));
      input.oninput = () => total(state, inputs);
      inputs[cell] = input;
      grid.append(input);
    }
  }
  $("position-to-move").replaceChildren(...names.map((name, seat) =>
    new Option(name, String(seat))));
  $("position-to-move").value = String(state.to_move);
  $("position-error").textContent = "";
  total(state, inputs);
  $("position-cancel").onclick = () => dialog.close();
  $("position-analyse").onclick = async () => {
    const cells = state.cells.map((count, cell) => (cell in inputs ? Number(inputs[cell].value)
                                                                    : count));
    try {
      const created = await createFromPosition({game: state.game, options: state.options,
        cells, to_move: Number($("position-to-move").value)});
      dialog.close();
      onCreated(created);
    } catch (error) {
      $("position-error").textContent = sayError(error);
    }
  };
  dialog.showModal();
}

function total(state, inputs) {
  const now = Object.values(inputs).reduce((sum, input) => sum + (Number(input.value) || 0), 0);
  const shown = Object.keys(inputs).reduce((sum, cell) => sum + state.cells[cell], 0);
  $("position-total").textContent = t("position_total", {count: now, start: shown});
}
