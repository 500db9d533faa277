// How to play, in the app: the rules for players in the page's language, and an example move
// played on a real board by the engine (the server's /api/examples), animated.
import {animate} from "./animation.js";
import {drawBoard} from "./board.js";
import {gameName} from "./home.js";
import {api} from "./server.js";
import {t} from "./texts.js";

const $ = (id) => document.getElementById(id);

// ``onLearn(game)``: the "Learn to play" button opens the game's lesson.
export async function showRules(game, onLearn) {
  const dialog = $("rules-dialog");
  $("rules-title").textContent = `${t("how_to_play")}: ${gameName(game)}`;
  $("rules-text").replaceChildren(...t(`rules_${game}`).split("\n").map(
    (line) => Object.assign(document.createElement("p"), {textContent: line})));
  if (!dialog.open) dialog.showModal();
  const example = await api(`/api/examples/${game}`);
  const play = async () => {
    $("rules-example").textContent = t("example", {move: example.name});
    const svg = $("rules-board");
    const options = {view: 0, playable: new Set(), reader: 0, names: null, last: example.move,
                   picture: true};
    const place = drawBoard(svg, example.before, options);
    svg.setAttribute("aria-label", t("example", {move: example.name}));
    await animate(svg, place, example.before, {...example.after, sowing: example.sowing},
                  {pace: 350, hand: $("rules-example"), onScore: () => {}});
    drawBoard(svg, example.after, options);
    $("rules-example").textContent = t("example", {move: example.name});
  };
  $("rules-replay").onclick = play;
  $("rules-close").onclick = () => dialog.close();
  $("rules-learn").onclick = () => { dialog.close(); onLearn(game); };
  play();
}
