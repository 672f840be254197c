// The table's one WebSocket (docs/protocol.md): join with the seat's token
// and the first event not yet seen, a ping every 5 s with a deadline,
// reconnection with backoff (at once when the browser comes back online or
// the tab is shown again), and what the close codes mean: 4401 the seat is
// no longer this browser's, 4404 no such table, 4420 the page fell behind
// (connect again at once), 4429 too many connections (try again later).
//
// A server that is frozen, or a network gone without a word, closes
// nothing: the socket just falls silent.  So a socket that has told nothing
// since the last ping (5 to 10 s after its last word), or has not opened
// within OPEN_WITHIN, is taken as dead and another is opened, which a proxy
// sends to a live server.

import { storeSeat, storedName } from "../api.js";
import { clear, h } from "../dom.js";
import { t } from "../i18n.js";

const PING_EVERY = 5000;
// a handshake's time to open, doubled after each failed try up to 20 s (a slow network still gets through)
const OPEN_WITHIN = 5000;
/** After the server turned the connection away for too many (4429): the wait before trying again. */
const TOO_MANY_WAIT = 30000;

/** The join message: the seat's token (or null to watch), the first event not seen, and a watcher's name if it has one. */
/** A state message made whole: what it names as the same is taken from the last state this connection had. */
export function fillSame(message, last) {
  for (const key of message.same || []) if (last && key in last) message[key] = last[key];
  delete message.same;
  return message;
}

export function joinMessage(S, name = "") {
  // same: a state may leave out what is as this connection last had it, and name it in its "same" (fillSame)
  const message = { type: "join", token: S.token, since: S.lastNumber + 1, same: true };
  const clean = String(name || "").trim().replace(/\s+/g, " ");
  if (!S.token && !S.nameRefused && clean.length >= 1 && clean.length <= 30) message.name = clean;
  return message;
}

/**
 * Connect the table of ctx ({S, id, page, view, render}); `onMessage` gets
 * each message from the server.  Returns {send, stop}.
 */
export function openConnection(ctx, onMessage) {
  const { S, id, page } = ctx;
  const C = { ws: null, stopped: false, attempts: 0, retryTimer: null, pingTimer: null, openTimer: null, heard: false };

  function url() {
    return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/ws/${encodeURIComponent(id)}`;
  }

  function connect() {
    if (C.stopped) return;
    let socket;
    try {
      socket = new WebSocket(url());
    } catch {
      scheduleReconnect();
      return;
    }
    C.ws = socket;
    S.joined = false;
    clearTimeout(C.openTimer);
    const openWithin = OPEN_WITHIN * 2 ** Math.min(2, Math.max(0, C.attempts - 1));
    C.openTimer = setTimeout(() => {
      if (socket.readyState === WebSocket.CONNECTING) lost(socket, null);
    }, openWithin);
    socket.addEventListener("open", () => {
      clearTimeout(C.openTimer);
      socket.send(JSON.stringify(joinMessage(S, storedName())));
      C.heard = true;
      clearInterval(C.pingTimer);
      C.pingTimer = setInterval(() => {
        if (!C.heard) {
          lost(socket, null); // nothing since the last ping
          return;
        }
        C.heard = false;
        send({ type: "ping" });
      }, PING_EVERY);
    });
    socket.addEventListener("message", (event) => {
      if (C.ws !== socket) return; // a socket given up for dead, come back to life
      C.heard = true;
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === "state") {
        C.attempts = 0;
        page.banner(null);
        C.last = fillSame(message, C.last);
      }
      if (message.type === "error" && !S.joined && !S.token && !S.nameRefused && message.code === "bad_message") {
        S.nameRefused = true; // the watcher's name was refused: watch without it
        socket.send(JSON.stringify(joinMessage(S)));
        return;
      }
      onMessage(message);
    });
    socket.addEventListener("close", (event) => lost(socket, event.code));
  }

  /** The socket closed with `code`, or (null) is taken as dead and dropped: connect again, unless the code ends it. */
  function lost(socket, code) {
    if (C.ws !== socket || C.stopped) return;
    clearInterval(C.pingTimer);
    clearTimeout(C.openTimer);
    C.ws = null;
    S.joined = false;
    S.pending = null;
    if (code === null) {
      try {
        socket.close(); // its close event, whenever it comes, finds another socket in C.ws
      } catch {
        /* already closing */
      }
    }
    if (code === 4401) {
      // the token is no longer good: back to the seat chooser
      storeSeat(id, null);
      stop();
      page.navigate(`/t/${encodeURIComponent(id)}`, true);
      return;
    }
    if (code === 4404) {
      stop();
      clear(ctx.view);
      ctx.view.className = "lobby";
      ctx.view.append(
        h("section", { class: "panel narrow" }, h("h1", {}, t("error.no_table")), h("p", {}, h("a", { href: "/", "data-link": true, class: "button" }, t("nav.lobby")))),
      );
      return;
    }
    if (code === 4420) C.attempts = 0; // fell behind: connect again at once, and be told afresh
    scheduleReconnect(code === 4429 ? TOO_MANY_WAIT : null);
    ctx.render();
  }

  function scheduleReconnect(wait = null) {
    if (C.stopped) return;
    clearTimeout(C.retryTimer);
    const delay = (wait || Math.min(15000, 500 * 2 ** C.attempts)) * (0.8 + Math.random() * 0.4);
    C.attempts += 1;
    const seconds = Math.max(1, Math.round(delay / 1000));
    if (wait) page.banner(t("conn.too_many", { n: seconds }));
    else page.banner(S.everConnected ? t("conn.reconnecting", { n: seconds }) : t("conn.connecting"));
    C.retryTimer = setTimeout(connect, delay);
  }

  function retryNow() {
    if (C.stopped || (C.ws && C.ws.readyState <= 1)) return;
    clearTimeout(C.retryTimer);
    C.attempts = 0;
    connect();
  }

  function send(message) {
    if (C.ws && C.ws.readyState === WebSocket.OPEN) {
      C.ws.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  const onOnline = () => retryNow();
  const onVisible = () => {
    if (document.visibilityState === "visible") retryNow();
  };

  function stop() {
    C.stopped = true;
    clearTimeout(C.retryTimer);
    clearTimeout(C.openTimer);
    clearInterval(C.pingTimer);
    window.removeEventListener("online", onOnline);
    document.removeEventListener("visibilitychange", onVisible);
    if (C.ws) {
      const socket = C.ws;
      C.ws = null;
      try {
        socket.close(1000);
      } catch {
        /* already closed */
      }
    }
  }

  window.addEventListener("online", onOnline);
  document.addEventListener("visibilitychange", onVisible);
  connect();
  return { send, stop };
}

/** Play an action for the own seat at the version on screen; the buttons wait until the next state. */
export function sendAction(ctx, text) {
  const { S } = ctx;
  if (!S.state || S.pending !== null) return;
  S.error = null;
  S.choices = null;
  if (!ctx.send({ type: "action", action: text, version: S.state.version })) {
    S.error = { text: t("conn.not_sent") };
    ctx.render();
    return;
  }
  S.pending = S.state.version;
  ctx.render();
}
