// The home page's lobby socket, opened as soon as this small script arrives (an async
// module: it waits for no other), so that on a slow link the seeks are there when the page
// is drawn; world.js takes it over (server.js follow) with the message it kept.
if (location.pathname === "/" && !location.search) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/api/lobby/ws`);
  window.mancalabLobby = {socket, last: null};
  socket.onmessage = (event) => { window.mancalabLobby.last = event; };
}
