// Every word the page shows comes from a language file (static/i18n/CODE.json). A text may
// hold {name} slots; a text that depends on a number is an object of plural forms
// ({"one": ..., "other": ...}, Intl.PluralRules' categories for the language).
let texts = {};
let language = "en";
let rules = new Intl.PluralRules("en");
const listeners = [];

export const LANGUAGES = ["en", "fr", "rn", "am"];

// A text about a person takes the form for "you" (KEY_you) when the person is the reader,
// whose name is the language's "you" (a person playing the computer is called so): the verb
// then agrees ("you win", not "you wins").
export function t(key, values = {}) {
  if (values.name !== undefined && values.name === texts.you && texts[`${key}_you`]) {
    key = `${key}_you`;
  }
  let text = texts[key];
  if (text === undefined) text = key;
  if (typeof text === "object") text = text[rules.select(Number(values.count ?? 0))] ?? text.other;
  for (const [name, value] of Object.entries(values)) {
    text = text.split(`{${name}}`).join(typeof value === "number" ? formatNumber(value) : value);
  }
  return text;
}

// An error from the server in the reader's language: its code's text (error_CODE) where the
// language files have one, else the server's own words, as a sentence.
export function sayError(error) {
  if (!error) return "";
  const key = error.code ? `error_${error.code}` : null;
  const text = key && texts[key] !== undefined ? t(key, error.values || {})
    : String(error.message || error);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// "{count} seeds" in the language's plural form for ``count``.
export function plural(key, count) {
  return t(key, {count});
}

export function formatNumber(value) {
  return new Intl.NumberFormat(language).format(value);
}

export function currentLanguage() {
  return language;
}

// The language to start with: the one chosen before, else the browser's first one we have.
export function preferredLanguage() {
  const chosen = localStorage.getItem("mancalab.language");
  if (LANGUAGES.includes(chosen)) return chosen;
  for (const wanted of navigator.languages || [navigator.language || "en"]) {
    const code = wanted.slice(0, 2).toLowerCase();
    if (LANGUAGES.includes(code)) return code;
  }
  return "en";
}

let wanted = null;  // the last language asked for: a slower earlier fetch must not win
// the page's version, as this module was named (web/assets.py): the texts are named so too
const VERSION = new URL(import.meta.url).search;

export async function setLanguage(code) {
  wanted = code;
  // remembered at once (a reload while its texts come keeps it); the server names this
  // language's texts in the page it sends next (web/assets.py)
  localStorage.setItem("mancalab.language", code);
  document.cookie = `mancalab.language=${code}; path=/; max-age=31536000; SameSite=Lax`;
  const loaded = await (await fetch(`/static/i18n/${code}.json${VERSION}`)).json();
  if (code !== wanted) return;
  useTexts(loaded, code);
  document.documentElement.lang = code;
  translatePage();
  for (const listener of listeners) listener();
}

// Speak language ``code`` with ``loaded`` (its language file's texts): the page after a
// fetch, a notebook's board with the texts it carries.
export function useTexts(loaded, code) {
  texts = loaded;
  language = code;
  rules = new Intl.PluralRules(code === "rn" ? "en" : code);  // Kirundi: one and other
}

export function onLanguage(listener) {
  listeners.push(listener);
}

// The static parts of the page: data-i18n (text), data-i18n-label (aria-label),
// data-i18n-title (title).
export function translatePage(root = document) {
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-label]")) {
    node.setAttribute("aria-label", t(node.dataset.i18nLabel));
  }
  for (const node of root.querySelectorAll("[data-i18n-title]")) {
    node.setAttribute("title", t(node.dataset.i18nTitle));
  }
  document.title = t("app_title");
}
