// The table's quick chat (docs/protocol.md `say` and `said`): the lines heard,
// each naming its speaker (text only, never markup), a mute per speaker kept
// in this browser, the phrase and emote buttons for seated people, a text box
// where the table allows free text, and a short bubble by the speaker's name.

import { storeMutes } from "../api.js";
import { clear, h, put } from "../dom.js";
import { t } from "../i18n.js";
import { icon } from "../icons.js";
import { refusalWords } from "../words.js";
import * as M from "./model.js";

/** How long a bubble stays by the speaker's name, and the pause the server asks between two lines. */
export const BUBBLE_MS = 5000;
const SAY_EVERY_MS = 2000;

/** A chat line's words as DOM: an emote as an image with its name, anything else as text. */
function lineWords(line) {
  if (typeof line.phrase === "string" && M.EMOTES[line.phrase]) {
    return h("span", { class: "emote", role: "img", "aria-label": t(`emote.${line.phrase}`), title: t(`emote.${line.phrase}`) }, M.EMOTES[line.phrase]);
  }
  return h("span", { class: "chat-words" }, M.chatWords(line));
}

function speakerName(S, line) {
  if (line.seat === S.me) return t("you");
  return line.name || M.nameOf(S, line.seat);
}

/** A `said` message heard: kept once, a bubble by the speaker unless muted; true when new. */
export function hearChat(ctx, line, now = Date.now()) {
  const { S } = ctx;
  if (!M.addChat(S, line)) return false;
  const live = S.joinedAt && now - S.joinedAt > 1500; // not the lines told again on joining
  if (live && !S.muted.includes(line.seat)) {
    S.bubbles[line.seat] = { line, until: now + BUBBLE_MS };
    clearTimeout(ctx.timers.bubbles);
    ctx.timers.bubbles = setTimeout(() => ctx.render(), BUBBLE_MS + 50);
    if (line.seat !== S.me && !ctx.chatInSight) S.unread = (S.unread || 0) + 1; // a count on the chat button until it is seen
    if (line.seat !== S.me) ctx.page.announce(t("chat.said", { who: speakerName(S, line), words: M.chatWords(line) }));
  }
  return true;
}

/** A bubble for a player's badge (the players strip), or null. */
export function bubbleFor(S, seat, now = Date.now()) {
  const bubble = S.bubbles[seat];
  if (!bubble || bubble.until < now || S.muted.includes(seat)) return null;
  return h("span", { class: "bubble", "data-testid": "bubble", "aria-hidden": "true" }, lineWords(bubble.line));
}

function say(ctx, message) {
  const { S } = ctx;
  if (!ctx.send({ type: "say", ...message })) {
    S.chatNote = t("conn.not_sent_chat");
  } else {
    S.chatNote = null;
    S.saidAt = Date.now();
    clearTimeout(ctx.timers.say);
    ctx.timers.say = setTimeout(() => ctx.render(), SAY_EVERY_MS + 50);
  }
  ctx.render();
}

function setMuted(ctx, seat) {
  const { S } = ctx;
  S.muted = M.toggleMute(S.muted, seat);
  storeMutes(ctx.id, S.muted);
  delete S.bubbles[seat];
  ctx.render();
  const again = ctx.el.chatPanel.querySelector(`[data-testid=unmute][data-seat="${seat}"], [data-testid=mute][data-seat="${seat}"]`);
  if (again) again.focus();
}

/** An error that answers a `say` (too soon, chat off): a note in the panel instead of a refusal. True when it was. */
export function chatError(ctx, message) {
  const { S } = ctx;
  if (!S.saidAt || Date.now() - S.saidAt > 3000) return false;
  if (message.code === "rate_limited") S.chatNote = t("chat.wait");
  else if (message.code === "chat" || message.code === "spectator" || message.code === "bad_message") S.chatNote = refusalWords(message);
  else return false;
  return true;
}

export function renderChat(ctx) {
  const { S, el } = ctx;
  const panel = el.chatPanel;
  const mode = M.chatMode(S);
  panel.hidden = !S.state || mode === "off";
  el.sideTabs.chat.hidden = panel.hidden; // no chat at this table: no tab for it on a phone's sheet
  if (panel.hidden) return;
  const list = el.chatList;
  clear(list);
  const shown = M.visibleChat(S.chat, S.muted);
  for (const line of shown) {
    const mine = line.seat === S.me;
    list.append(
      h(
        "li",
        { class: `chat-line team-${M.teamOf(S, line.seat)}${mine ? " mine" : ""}`, "data-testid": "chat-line", "data-seat": line.seat },
        h("span", { class: "chat-said" }, h("span", { class: "chat-who" }, speakerName(S, line)), h("span", { class: "chat-sep" }, ": "), lineWords(line)),
        mine
          ? null
          : h(
              "button",
              {
                type: "button",
                class: "mute link small",
                "data-testid": "mute",
                "data-seat": line.seat,
                "aria-label": t("chat.mute", { who: speakerName(S, line) }),
                title: t("chat.mute", { who: speakerName(S, line) }),
                onclick: () => setMuted(ctx, line.seat),
              },
              icon("mute"),
            ),
      ),
    );
  }
  if (!shown.length) list.append(h("li", { class: "muted chat-empty" }, t("chat.empty")));
  requestAnimationFrame(() => {
    list.scrollTop = list.scrollHeight;
  });
  const muted = el.chatMuted;
  clear(muted);
  muted.hidden = !S.muted.length;
  if (S.muted.length) {
    put(
      muted,
      t("chat.muted"),
      " ",
      S.muted.map((seat) =>
        h(
          "button",
          { type: "button", class: "link small", "data-testid": "unmute", "data-seat": seat, "aria-label": t("chat.unmute", { who: M.nameOf(S, seat) }), onclick: () => setMuted(ctx, seat) },
          M.nameOf(S, seat),
          " ",
          icon("speaker"),
        ),
      ),
    );
  }
  const note = el.chatNote;
  note.textContent = S.chatNote || (!M.isSeated(S) ? t("chat.spectator") : "");
  note.hidden = !note.textContent;
  const tools = el.chatTools;
  // the buttons are made again: the one in focus (or the text box, with its caret) keeps it
  const active = tools.contains(document.activeElement) ? document.activeElement : null;
  const focusKey = active ? active.id || active.dataset.phrase : null;
  const caret = active && active.id === "chat-text" ? active.selectionStart : null;
  clear(tools);
  if (!M.isSeated(S)) return;
  const resting = S.saidAt && Date.now() - S.saidAt < SAY_EVERY_MS;
  const disabled = !S.joined || !!resting;
  tools.append(
    h(
      "div",
      { class: "phrases", role: "group", "aria-label": t("chat.phrases") },
      M.PHRASES.map((id) =>
        h("button", { type: "button", class: "phrase small", "data-testid": "phrase", "data-phrase": id, "aria-disabled": disabled ? "true" : null, onclick: () => disabled || say(ctx, { phrase: id }) }, t(`chat.${id}`)),
      ),
    ),
    h(
      "div",
      { class: "emotes", role: "group", "aria-label": t("chat.emotes") },
      Object.entries(M.EMOTES).map(([id, emoji]) =>
        h(
          "button",
          { type: "button", class: "emote-button small", "data-testid": "phrase", "data-phrase": id, "aria-label": t(`emote.${id}`), title: t(`emote.${id}`), "aria-disabled": disabled ? "true" : null, onclick: () => disabled || say(ctx, { phrase: id }) },
          emoji,
        ),
      ),
    ),
  );
  if (mode === "text") {
    const input = h("input", { type: "text", id: "chat-text", maxlength: 200, autocomplete: "off", "aria-label": t("chat.text_label"), placeholder: t("chat.text_placeholder") });
    input.value = S.chatDraft || "";
    input.addEventListener("input", () => {
      S.chatDraft = input.value;
    });
    const form = h(
      "form",
      {
        class: "chat-form",
        id: "chat-form",
        onsubmit: (event) => {
          event.preventDefault();
          const text = input.value.trim();
          if (!text || (S.saidAt && Date.now() - S.saidAt < SAY_EVERY_MS)) return;
          S.chatDraft = "";
          say(ctx, { text });
          ctx.el.chatPanel.querySelector("#chat-text")?.focus();
        },
      },
      input,
      h("button", { type: "submit", class: "small", id: "chat-send", "aria-disabled": disabled ? "true" : null }, t("chat.send")),
    );
    tools.append(form);
  }
  if (focusKey) {
    const again = tools.querySelector(`#${focusKey}`) || tools.querySelector(`[data-phrase="${focusKey}"]`);
    if (again) {
      again.focus({ preventScroll: true });
      if (caret !== null && again.setSelectionRange) again.setSelectionRange(caret, caret);
    }
  }
}
