// Classes: a pupil joins with the class code and logs in again with two pictures; a teacher
// makes classes, adds pupils (cards to print), assigns work, follows progress and runs a round
// robin on the classroom's projector. The server decides everything; this draws it.
import {gameName} from "./home.js";
import {api, send} from "./server.js";
import {plural, sayError, t} from "./texts.js";
import {clockText} from "./world.js";

const $ = (id) => document.getElementById(id);
// the server's pictures (web.classes.PICTURES), each drawn by an emoji and named in words
const PICTURES = {
  lion: "🦁", elephant: "🐘", giraffe: "🦒", zebra: "🦓", monkey: "🐒", hippo: "🦛",
  crocodile: "🐊", turtle: "🐢", fish: "🐟", bird: "🐦", owl: "🦉", butterfly: "🦋", bee: "🐝",
  snail: "🐌", frog: "🐸", rabbit: "🐇", cat: "🐈", dog: "🐕", cow: "🐄", goat: "🐐",
  horse: "🐎", camel: "🐪", sun: "☀️", moon: "🌙", star: "⭐", tree: "🌳", flower: "🌼",
  drum: "🥁", ball: "⚽", house: "🏠", boat: "⛵", mango: "🥭",
};
const TOURNAMENT_CLOCKS = [[300, 3], [600, 5], [900, 10]];
const LANGUAGE_NAMES = {en: "English", fr: "Français", rn: "Kirundi", am: "አማርኛ"};
let catalogueGames = [];
let picked = [];
let tournamentTimer = null;

function picture(name) {
  return `${PICTURES[name] || "?"} ${t(`picture_${name}`)}`;
}

function item(text, href = null, extra = []) {
  const li = document.createElement("li");
  li.append(href ? Object.assign(document.createElement("a"), {href, textContent: text}) : text,
            ...extra);
  return li;
}

function button(text, onclick, className = "") {
  const made = Object.assign(document.createElement("button"), {type: "button", className,
                                                                  textContent: text});
  made.onclick = onclick;
  return made;
}

// ----- the home page: a pupil's class, joining, pictures, a teacher's classes -------------
export async function showClasses(account) {
  let mine = {class: null};
  try { mine = await api("/api/session/class"); } catch { /* none */ }
  const pupil = Boolean(mine.class);
  $("my-class").hidden = !pupil;
  $("class-join").hidden = pupil || Boolean(account);
  $("teacher-classes").hidden = pupil || !account;
  if (pupil) {  // a pupil's class comes first on the home page, where one looks
    $("home").prepend($("classes-home"));
    drawMyClass(mine);
  } else if (account) drawTeacherClasses();
}

function drawMyClass(mine) {
  $("my-class-name").textContent = mine.class.name;
  $("my-class-who").textContent = t("class_you_are", {name: mine.real_name});
  const links = {puzzles: "puzzles", lesson: "learn", exercises: "exercises"};
  $("my-class-todo").replaceChildren(...mine.todo.map((task) => {
    const text = `${assignmentText(task)} · ${task.done}/${task.wanted}`;
    const href = task.kind === "worksheet"
      ? `/api/worksheets/${task.game}?questions=${task.count}&language=${mine.class.language}`
      : `/?${links[task.kind]}=${task.game}`;
    return item(text, href);
  }));
  $("my-class-nothing").hidden = mine.todo.some((task) => task.done < task.wanted);
  $("my-class-games-title").hidden = mine.games.length === 0;
  $("my-class-games").replaceChildren(...mine.games.map((game) =>
    item(t("class_play_your_game"), `/?game=${game.id}&token=${game.token}`)));
}

async function drawTeacherClasses() {
  let classes = [];
  try { classes = (await api("/api/classes")).classes; } catch { return; }
  $("teacher-class-list").replaceChildren(...classes.map((c) =>
    item(`${c.name} · ${c.code}`, `/?class=${c.id}`)));
}

async function join(event) {
  event.preventDefault();
  $("classes-error").textContent = "";
  try {
    const made = await api("/api/classes/join", {code: $("class-join-code").value,
                                                 name: $("class-join-name").value});
    $("class-pictures").textContent = made.pictures.map(picture).join("  ·  ");
    $("class-pictures-shown").hidden = false;
    showClasses(null);
  } catch (error) { $("classes-error").textContent = sayError(error); }
}

function openLogin() {
  picked = [];
  $("class-picked").textContent = "";
  $("class-login").hidden = false;
  $("class-picture-grid").replaceChildren(...Object.keys(PICTURES).map((name) => {
    const choice = button(PICTURES[name], () => pick(name), "picture");
    choice.setAttribute("aria-label", t(`picture_${name}`));
    return choice;
  }));
}

async function pick(name) {
  picked.push(name);
  $("class-picked").textContent = picked.map(picture).join("  ·  ");
  if (picked.length < 2) return;
  const pictures = picked;
  picked = [];
  try {
    await api("/api/classes/login", {code: $("class-join-code").value,
                                     name: $("class-join-name").value, pictures});
    $("class-login").hidden = true;
    $("classes-error").textContent = "";
    showClasses(null);
  } catch (error) {
    $("class-picked").textContent = "";
    $("classes-error").textContent = sayError(error);
  }
}

async function makeClass(event) {
  event.preventDefault();
  $("classes-error").textContent = "";
  const games = [...document.querySelectorAll("#class-make-games input:checked")]
    .map((box) => box.value);
  try {
    const made = await api("/api/classes", {name: $("class-make-name").value, games,
                                            language: $("class-make-language").value});
    location.href = `/?class=${made.id}`;
  } catch (error) { $("classes-error").textContent = sayError(error); }
}

export function wireClasses(games) {
  const code = new URLSearchParams(location.search).get("join");  // a join sheet's QR code
  if (code) $("class-join-code").value = code;
  catalogueGames = games;
  $("class-join").onsubmit = join;
  $("class-login-open").onclick = openLogin;
  $("class-make").onsubmit = makeClass;
  $("class-make-games").replaceChildren($("class-make-games").firstElementChild,
                                        ...games.map((game) => {
    const label = document.createElement("label");
    label.className = "check";
    label.append(Object.assign(document.createElement("input"), {type: "checkbox",
                                                                 value: game}),
                 ` ${gameName(game)}`);
    return label;
  }));
  const language = $("class-make-language");
  language.replaceChildren(...Object.entries(LANGUAGE_NAMES).map(([code, name]) =>
    new Option(name, code)));
}

// ----- the class page, for its teacher ----------------------------------------------
export async function showClassPage(classId, back) {
  $("home").hidden = true;
  $("play").hidden = true;
  $("tournament-page").hidden = true;
  $("class-page").hidden = false;
  $("class-page-back").onclick = back;
  $("class-page-error").textContent = "";
  let klass, progress;
  try {
    [klass, progress] = await Promise.all([api(`/api/classes/${classId}`),
                                           api(`/api/classes/${classId}/progress`)]);
  } catch (error) { $("class-page-error").textContent = sayError(error); return; }
  $("class-page-title").textContent = klass.name;
  $("class-page-code").textContent = klass.code;
  $("class-page-join").textContent = t("class_join_how", {address: location.host,
                                                          code: klass.code});
  $("class-page-csv").href = `/api/classes/${classId}/progress?format=csv`;
  drawJoinSheet(klass);
  $("class-page-delete").onclick = async () => {
    if (!confirm(t("class_delete_sure", {name: klass.name}))) return;
    await send(`/api/classes/${classId}`, "DELETE").catch(() => null);
    back();
  };
  drawProgress(classId, klass, progress);
  drawAssignments(classId, klass);
  drawTournamentForm(classId, klass);
  $("class-add").onsubmit = (event) => addPupils(event, classId, klass);
}

// The join sheet: the code, and a QR code of the join link that pupils' phones open (the
// laptop's own address: a school network with no internet). Its script loads only here.
async function drawJoinSheet(klass) {
  const link = `${location.origin}/?join=${encodeURIComponent(klass.code)}`;
  $("class-join-sheet-code").textContent = klass.code;
  $("class-join-sheet-how").textContent = t("class_join_how", {address: location.host,
                                                               code: klass.code});
  const {default: qrcode} = await import("./qrcode.js");
  const qr = qrcode(0, "M");
  qr.addData(link);
  qr.make();
  $("class-join-qr").innerHTML = qr.createSvgTag({cellSize: 6, margin: 2, scalable: true,
                                                  alt: link, title: link});
  $("class-page-print-join").onclick = () => {
    document.body.classList.add("printing-join");
    window.print();
    document.body.classList.remove("printing-join");
  };
}

function drawProgress(classId, klass, progress) {
  const tasks = progress.assignments;
  $("class-progress-body").replaceChildren(...progress.pupils.map((row) => {
    const tr = document.createElement("tr");
    const exercises = Object.values(row.exercises);
    const right = exercises.reduce((sum, e) => sum + e.right, 0);
    const wrong = exercises.reduce((sum, e) => sum + e.wrong, 0);
    const done = tasks.map((task) => {
      const one = row.assignments[task.id];
      return `${one.done}/${one.wanted}`;
    }).join(" · ");
    const cells = [`${row.real_name} (${row.pupil})`, String(row.lessons),
                   `${right} ✓ ${wrong} ✗`, `${row.puzzles_solved}/${row.puzzles_tried}`,
                   String(row.puzzle_rating), `${row.wins}-${row.draws}-${row.losses}`,
                   String(row.minutes), done || "—"];
    tr.append(...cells.map((text) => Object.assign(document.createElement("td"),
                                                   {textContent: text})));
    const actions = document.createElement("td");
    actions.append(button(t("class_rename"), async () => {
      const name = prompt(t("class_rename_to", {name: row.real_name}), row.real_name);
      if (!name || name.trim() === row.real_name) return;
      try {
        await api(`/api/classes/${classId}/pupils/${encodeURIComponent(row.pupil)}/rename`,
                  {name: name.trim()});
        showClassPage(classId, $("class-page-back").onclick);
      } catch (error) { $("class-page-error").textContent = sayError(error); }
    }), button(t("class_reset"), async () => {
      const made = await send(`/api/classes/${classId}/pupils/${encodeURIComponent(row.pupil)}/reset`,
                              "POST").catch((error) => ({error}));
      if (made.error) { $("class-page-error").textContent = sayError(made.error); return; }
      showCards([{real_name: row.real_name, pupil: row.pupil, pictures: made.pictures}],
                klass);
    }), button(t("class_remove"), async () => {
      if (!confirm(t("class_remove_sure", {name: row.real_name}))) return;
      await send(`/api/classes/${classId}/pupils/${encodeURIComponent(row.pupil)}`, "DELETE")
        .catch(() => null);
      showClassPage(classId, $("class-page-back").onclick);
    }));
    tr.append(actions);
    return tr;
  }));
  drawChart(progress.weeks);
}

function drawChart(weeks) {
  const chart = $("class-chart");
  chart.replaceChildren();
  if (!weeks.length) return;
  const svgNS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(svgNS, "svg");
  const most = Math.max(...weeks.map((w) => w.right));
  svg.setAttribute("viewBox", `0 0 ${weeks.length * 40 + 10} 120`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", t("class_chart", {weeks: weeks.length}));
  weeks.forEach((week, i) => {
    const height = Math.max(2, 90 * week.right / most);
    const bar = document.createElementNS(svgNS, "rect");
    Object.entries({x: 10 + i * 40, y: 100 - height, width: 28, height,
                    class: "rating-dot"}).forEach(([k, v]) => bar.setAttribute(k, v));
    const label = document.createElementNS(svgNS, "text");
    Object.entries({x: 24 + i * 40, y: 114, "text-anchor": "middle", "font-size": 9})
      .forEach(([k, v]) => label.setAttribute(k, v));
    label.textContent = new Date(week.week * 1000).toLocaleDateString(
      document.documentElement.lang || undefined, {month: "short", day: "numeric"});
    svg.append(bar, label);
  });
  const caption = Object.assign(document.createElement("p"),
                                {textContent: t("class_chart", {weeks: weeks.length})});
  chart.append(caption, svg);
}

async function addPupils(event, classId, klass) {
  event.preventDefault();
  const names = $("class-add-names").value.split("\n").map((n) => n.trim()).filter(Boolean);
  if (!names.length) return;
  try {
    const made = await api(`/api/classes/${classId}/pupils`, {names});
    $("class-add-names").value = "";
    showCards(made.cards, klass);
    showClassPage(classId, $("class-page-back").onclick);
  } catch (error) { $("class-page-error").textContent = sayError(error); }
}

// Cards to print and hand out: the class code, the pupil's name and their two pictures.
function showCards(cards, klass) {
  const box = $("class-cards");
  box.hidden = false;
  box.replaceChildren(...cards.map((card) => {
    const div = Object.assign(document.createElement("div"), {className: "card"});
    div.append(Object.assign(document.createElement("strong"), {textContent: card.real_name}),
               Object.assign(document.createElement("p"), {
                 textContent: `${t("class_code")}: ${klass.code}`}),
               Object.assign(document.createElement("p"), {
                 className: "pictures", textContent: card.pictures.map(picture).join("  ·  ")}),
               Object.assign(document.createElement("p"), {
                 textContent: t("class_join_how", {address: location.host, code: klass.code})}));
    return div;
  }), button(t("class_print"), () => window.print(), "no-print"));
}

function drawAssignments(classId, klass) {
  const games = $("class-assign-game");
  games.replaceChildren(...klass.games.map((game) => new Option(gameName(game), game)));
  const kind = $("class-assign-kind");
  kind.onchange = () => { $("class-assign-theme-label").hidden = kind.value !== "puzzles"; };
  kind.onchange();
  $("class-assignment-list").replaceChildren(...klass.assignments.map((task) =>
    item(assignmentText(task), null, [
      " ", button(t("class_unassign"), async () => {
        await send(`/api/classes/${classId}/assignments/${task.id}`, "DELETE").catch(() => null);
        showClassPage(classId, $("class-page-back").onclick);
      })])));
  $("class-assign").onsubmit = async (event) => {
    event.preventDefault();
    try {
      const due = $("class-assign-due").valueAsNumber;  // midnight UTC of the day chosen
      await api(`/api/classes/${classId}/assignments`, {
        kind: kind.value, game: games.value, count: Number($("class-assign-count").value),
        theme: kind.value === "puzzles" && $("class-assign-theme").value || null,
        due: Number.isFinite(due) ? due / 1000 + 86399 : null});
      showClassPage(classId, $("class-page-back").onclick);
    } catch (error) { $("class-page-error").textContent = sayError(error); }
  };
}

// An assignment in words: what, which game, how many, the theme and the day it is due.
function assignmentText(task) {
  const parts = [t(`class_kind_${task.kind}`), gameName(task.game), String(task.count)];
  if (task.theme) parts.push(t(`theme_${task.theme}`));
  if (task.due) parts.push(t("class_due_on", {date: new Date(task.due * 1000)
    .toLocaleDateString(document.documentElement.lang || undefined)}));
  return parts.join(" · ");
}

function drawTournamentForm(classId, klass) {
  $("class-tournament-game").replaceChildren(...klass.games.map((game) =>
    new Option(gameName(game), game)));
  $("class-tournament-clock").replaceChildren(...TOURNAMENT_CLOCKS.map(([base, inc], i) =>
    new Option(clockText([base, inc]), String(i))));
  const legend = $("class-tournament-pupils").firstElementChild;
  $("class-tournament-pupils").replaceChildren(legend, ...klass.pupils.map((p) => {
    const label = Object.assign(document.createElement("label"), {className: "check"});
    label.append(Object.assign(document.createElement("input"), {
      type: "checkbox", value: p.pupil, checked: true}), ` ${p.real_name}`);
    return label;
  }));
  $("class-tournament-list").replaceChildren(
    ...(klass.tournaments || []).map((tour) => item(`${tournamentName(tour)} · ${
      plural("class_rounds", tour.planned)}`, tour.link)),
    ...(klass.arenas || []).map((arena) => item(`${t("arena")} · ${gameName(arena.game)} ${
      clockText(arena.clock)}`, `/?arena=${arena.id}`)));
  $("class-tournament").onsubmit = async (event) => {
    event.preventDefault();
    const pupils = [...document.querySelectorAll("#class-tournament-pupils input:checked")]
      .map((box) => box.value);
    const [base, increment] = TOURNAMENT_CLOCKS[Number($("class-tournament-clock").value)];
    try {
      const made = await api(`/api/classes/${classId}/tournaments`, {
        kind: $("class-tournament-kind").value, game: $("class-tournament-game").value,
        clock: {base, increment}, pupils});
      location.href = made.link;
    } catch (error) { $("class-page-error").textContent = sayError(error); }
  };
}

function tournamentName(tour) {
  const key = tour.kind === "swiss" ? "class_swiss_of" : "class_round_robin_of";
  return t(key, {game: gameName(tour.game)});
}

// ----- a tournament on the classroom's projector -------------------------------------------
export async function showTournamentPage(tournamentId, back) {
  $("home").hidden = true;
  $("play").hidden = true;
  $("class-page").hidden = true;
  $("tournament-page").hidden = false;
  $("tournament-print").onclick = () => window.print();
  clearInterval(tournamentTimer);
  const draw = async () => {
    if ($("tournament-page").hidden) { clearInterval(tournamentTimer); return; }
    try { drawTournament(await api(`/api/tournaments/${tournamentId}`), back); }
    catch (error) { $("tournament-error").textContent = sayError(error); }
  };
  await draw();
  tournamentTimer = setInterval(draw, 5000);  // results come in as games end
}

function drawTournament(tour, back) {
  $("tournament-error").textContent = "";
  $("tournament-title").textContent = `${tournamentName(tour)} · ${clockText(tour.clock)}`;
  $("tournament-back").onclick = () => { location.href = `/?class=${tour.class_id}`; };
  $("tournament-standings").replaceChildren(...tour.standings.map((row, i) => {
    const tr = document.createElement("tr");
    tr.append(...[String(i + 1), row.name, String(row.points), String(row.games)].map((text) =>
      Object.assign(document.createElement("td"), {textContent: text})));
    return tr;
  }));
  const absentBox = $("tournament-absent");
  if (absentBox.children.length <= 1) {
    absentBox.append(...tour.standings.map((row) => {
      const label = Object.assign(document.createElement("label"), {className: "check"});
      label.append(Object.assign(document.createElement("input"), {type: "checkbox",
                                                                   value: row.pupil}),
                   ` ${row.name}`);
      return label;
    }));
  }
  $("tournament-next").hidden = tour.started >= tour.planned;
  $("tournament-next").onclick = async () => {
    const absent = [...document.querySelectorAll("#tournament-absent input:checked")]
      .map((box) => box.value);
    try { drawTournament(await api(`/api/tournaments/${tour.id}/rounds`, {absent}), back); }
    catch (error) { $("tournament-error").textContent = sayError(error); }
  };
  $("tournament-rounds").replaceChildren(...tour.rounds.slice(0, tour.started).map(
    (pairs, number) => {
      const section = document.createElement("section");
      section.append(Object.assign(document.createElement("h2"), {
        textContent: t("class_round", {number: number + 1})}));
      const list = Object.assign(document.createElement("ul"), {className: "arenas"});
      list.append(...pairs.map((pair) => {
        const names = pair.names.map((name) => name ?? t("class_bye"));
        const result = pair.skipped ? t("class_skipped")
          : pair.result === "A" ? "1–0" : pair.result === "B" ? "0–1"
          : pair.result === "D" ? "½–½" : pair.result === "X" ? t("class_no_result")
          : pair.game_id ? t("class_playing") : t("class_bye");
        const extra = [` · ${result}`];
        if (pair.game_id && !pair.result) {
          extra.push(" ", button(t("class_end_game"), async () => {
            try { drawTournament(await api(
              `/api/tournaments/${tour.id}/games/${pair.game_id}/end`, {}), back); }
            catch (error) { $("tournament-error").textContent = sayError(error); }
          }, "no-print"));
        }
        return item(`${names[0]} – ${names[1]}`, pair.game_id ? `/?game=${pair.game_id}` : null,
                    extra);
      }));
      section.append(list);
      return section;
    }).reverse());
}
