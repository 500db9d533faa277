// A results page's replayable games (mancalab.draw.html.replay_page, written by a tournament):
// each <details class="replay"> steps through its game with the page's own board drawing
// (``board``: board.js), drawn when it is opened.
export function showReplays(board, games) {
  for (const section of document.querySelectorAll("details.replay")) {
    const game = games[Number(section.dataset.game)];
    let ply = 0;
    const show = () => {
      const view = {...game.view, cells: game.cells[ply], to_move: game.to_move[ply]};
      board.drawBoard(section.querySelector("svg"), view,
                      {view: 0, names: game.names, reader: null, last: null, playable: new Set()});
      section.querySelector(".at").textContent = ply
        ? `move ${ply} of ${game.moves.length}: ${game.moves[ply - 1]}`
        : `the start (${game.moves.length} moves)`;
    };
    const steps = {first: () => 0, back: () => Math.max(0, ply - 1),
                   next: () => Math.min(game.moves.length, ply + 1), last: () => game.moves.length};
    for (const button of section.querySelectorAll("button")) {
      button.onclick = () => { ply = steps[button.dataset.step](); show(); };
    }
    section.addEventListener("toggle", () => { if (section.open) show(); });
  }
}
