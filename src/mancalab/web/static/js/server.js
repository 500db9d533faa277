// Talking to the server: the JSON API and a game's live websocket (reconnecting).
export function api(path, body) {
  return send(path, body === undefined ? "GET" : "POST", body);
}

// A request by any method; its JSON answer, or an Error with the server's words.
export async function send(path, method, body) {
  const response = await fetch(path, body === undefined ? {method} : {
    method, headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const detail = Array.isArray(data.detail) ? data.detail.map((d) => d.msg).join("; ")
      : data.detail;
    // code and values: the page says the error in the reader's language (texts.js sayError)
    throw Object.assign(new Error(detail || response.statusText),
                        {status: response.status, code: data.code, values: data.values});
  }
  return data;
}

// Follow game ``id`` live: ``onState(state)`` for every state, ``onError(text)`` for a
// refused message, ``onLine(connected)`` when the connection drops or comes back. A socket
// the server refuses says why by its close code: no such game (4404) or another site's page
// (4403) end the following; a full server (4429) is followed by asking for the game every
// few seconds until a socket is admitted again.
const POLL_MS = 5000, FULL_RETRY_MS = 30000;

export function live(id, token, {onState, onError, onLine}) {
  let socket = null;
  let closed = false;
  let polling = null;
  const query = token ? `?token=${encodeURIComponent(token)}` : "";
  const poll = () => api(`/api/games/${id}${query}`).then(onState).catch(() => {});
  const open = (attempt) => {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${location.host}/api/games/${id}/ws${query}`);
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "state") onState(message.state);
      else if (message.type === "error") onError(message.message);
    };
    socket.onopen = () => { attempt = 0; onLine(true); };
    socket.onclose = (event) => {
      if (closed) return;
      if (event.code === 4404 || event.code === 4403) { onError(event.reason); return; }
      if (event.code === 4429) {
        if (!polling) { poll(); polling = setInterval(poll, POLL_MS); }
        setTimeout(() => { if (!closed) open(0); }, FULL_RETRY_MS);
        return;
      }
      onLine(false);
      setTimeout(() => open(attempt + 1), Math.min(5000, 250 * 2 ** attempt));
    };
    socket.addEventListener("open", () => { clearInterval(polling); polling = null; });
  };
  open(0);
  return {close: () => { closed = true; clearInterval(polling); socket.close(); }};
}

// Follow what the server pushes over the websocket ``path`` (the lobby, an arena):
// ``onMessage(message)`` for each, ``onLine(connected, attempt)`` when it drops or comes
// back; it opens again by itself with a growing pause until ``close()`` (not after a refusal
// for a missing thing or another site's page). ``early``: {socket, last} already opened for
// it (early.js), its last message not yet told.
export function follow(path, {onMessage, onLine = () => {}}, early = null) {
  let socket = null;
  let closed = false;
  const open = (attempt) => {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const adopted = attempt === 0 && early && early.socket.readyState <= WebSocket.OPEN;
    socket = adopted ? early.socket : new WebSocket(`${scheme}://${location.host}${path}`);
    socket.onmessage = (event) => onMessage(JSON.parse(event.data));
    socket.onopen = () => { attempt = 0; onLine(true, 0); };
    socket.onclose = (event) => {
      if (closed) return;
      onLine(false, attempt);
      if (event.code === 4404 || event.code === 4403) return;
      setTimeout(() => { if (!closed) open(attempt + 1); }, Math.min(10000, 500 * 2 ** attempt));
    };
    if (adopted && socket.readyState === WebSocket.OPEN) onLine(true, 0);
    if (adopted && early.last) socket.onmessage(early.last);
  };
  open(0);
  return {
    close: () => { closed = true; socket.close(); },
    get open() { return socket.readyState === WebSocket.OPEN; },
  };
}
