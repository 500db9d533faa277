// The account's API tokens: made (shown once), listed with when each was last used, revoked.
// Programs act for the account by them (mancalab bot; the server's Bot API), never by cookie.
import {api, send} from "./server.js";
import {sayError, t} from "./texts.js";

const $ = (id) => document.getElementById(id);

function day(seconds) {
  return new Date(seconds * 1000).toLocaleDateString(document.documentElement.lang || undefined);
}

async function list() {
  let tokens = [];
  try { tokens = (await api("/api/tokens")).tokens; }
  catch (error) { $("tokens-error").textContent = sayError(error); return; }
  $("tokens-list").replaceChildren(...tokens.map((token) => {
    const item = document.createElement("li");
    const used = token.used ? t("token_used", {date: day(token.used)}) : t("token_never_used");
    item.append(`${token.label} · ${token.scopes.join(", ")} · ${used} `);
    const revoke = Object.assign(document.createElement("button"), {
      type: "button", textContent: t("token_revoke")});
    revoke.setAttribute("aria-label", `${t("token_revoke")}: ${token.label}`);
    revoke.onclick = async () => {
      try { await send(`/api/tokens/${encodeURIComponent(token.id)}`, "DELETE"); }
      catch (error) { $("tokens-error").textContent = sayError(error); }
      $("token-new").hidden = true;
      list();
    };
    item.append(revoke);
    return item;
  }));
}

async function make(event) {
  event.preventDefault();
  $("tokens-error").textContent = "";
  try {
    const made = await api("/api/tokens", {label: $("token-label").value.trim() || "token"});
    $("token-text").textContent = made.token;
    $("token-new").hidden = false;
    $("token-label").value = "";
  } catch (error) { $("tokens-error").textContent = sayError(error); }
  list();
}

// The tokens' dialog (its module loaded on the first click of its button).
export function openTokens() {
  $("token-new").hidden = true;
  $("tokens-error").textContent = "";
  list();
  $("tokens-dialog").showModal();
  $("token-form").onsubmit = make;
  $("tokens-close").onclick = () => {
    $("token-text").textContent = "";  // shown once: gone when the dialog closes
    $("tokens-dialog").close();
  };
}
