// Signing up, in and out (docs/protocol.md, "Accounts"): a panel in the lobby.  Guests play without one.

import { api, storeName } from "./api.js";
import { $, clear, h } from "./dom.js";
import { t } from "./i18n.js";
import { passkeysHere } from "./passkeys.js";

/** The account refusals in the reader's words: the server's codes mean other things at a table. */
const REFUSALS = {
  signed_out: "account.error.signed_out",
  name_taken: "account.error.name_taken",
  quota: "account.error.quota",
  csrf: "account.error.csrf",
  invalid: "account.error.invalid",
  banned: "account.error.banned",
  wrong_password: "account.error.wrong_password",
};

/** The browser's own passkey failures (DOMException names): the prompt closed, or the passkey already here. */
const PROMPT_FAILURES = {
  NotAllowedError: "account.error.passkey_closed",
  InvalidStateError: "account.error.passkey_held",
};

/** A passkey's sign-in refused: the passkey is not known here (no name nor password was asked). */
const PASSKEY_REFUSALS = { ...REFUSALS, signed_out: "account.error.passkey_unknown" };

function refusal(error, words = REFUSALS) {
  if (PROMPT_FAILURES[error.name]) return t(PROMPT_FAILURES[error.name]);
  return words[error.code] ? t(words[error.code]) : error.message;
}

/** The lobby's account panel: who is signed in, or the form to sign in or make an account. */
export function accountPanel() {
  const panel = h("section", { id: "account", class: "account" });
  api
    .me()
    .then((me) => (me.name ? signedIn(panel, me) : signInForm(panel)))
    .catch(() => signInForm(panel));
  return panel;
}

function signedIn(panel, me) {
  clear(panel);
  const out = h("button", { type: "button", id: "sign-out" }, t("account.sign_out"));
  const error = h("p", { class: "error-line", role: "alert" });
  out.addEventListener("click", async () => {
    try {
      await api.signOut();
      signInForm(panel);
    } catch (failure) {
      error.textContent = refusal(failure);
    }
  });
  const seats = h("ul", { id: "account-seats", class: "account-seats" });
  panel.setAttribute("aria-labelledby", "account-who");
  const profile = h("a", { href: `/p/${encodeURIComponent(me.name)}`, "data-link": true, id: "my-profile" }, t("account.profile"));
  panel.append(h("p", { id: "account-who", "data-testid": "signed-in" }, t("account.signed_in", { name: me.name }), " · ", profile), seats);
  if (passkeysHere()) panel.append(passkeyList(error));
  panel.append(out, error);
  api
    .mySeats()
    .then((answer) => {
      for (const held of answer.seats) {
        const href = `/t/${encodeURIComponent(held.table)}`;
        const words = t("account.seat", { n: held.seat + 1, status: t(`status.${held.status}`) });
        seats.append(h("li", {}, h("a", { href, "data-link": true, "data-testid": "my-seat" }, words)));
      }
    })
    .catch(() => {}); // the list is a convenience: the panel works without it
  const name = $("#name");
  if (name && !name.value.trim()) {
    name.value = me.name; // the name to sit under, unless the player chose another
    storeName(me.name);
  }
}

/** The account's passkeys, each with its remove button, and the button that makes one on this device (the
 * password asked again first: a passkey outlasts the session). */
function passkeyList(error) {
  const list = h("ul", { id: "passkeys", class: "account-seats" });
  const add = h("button", { type: "button", id: "add-passkey" }, t("account.add_passkey"));
  const password = h("input", { id: "passkey-password", type: "password", autocomplete: "current-password", required: true, minlength: 8, maxlength: 256 });
  const confirm = h(
    "form",
    { id: "passkey-form", class: "account-form", hidden: true, novalidate: true },
    h("label", { class: "field" }, h("span", { class: "field-label" }, t("account.passkey_password")), password),
    h("div", { class: "row-actions" }, h("button", { type: "submit", id: "passkey-confirm", class: "primary" }, t("account.add_passkey"))),
  );
  const show = async () => {
    const { passkeys } = await api.myPasskeys();
    clear(list);
    for (const key of passkeys) {
      const remove = h("button", { type: "button", class: "link", "data-testid": "remove-passkey" }, t("account.remove_passkey"));
      remove.addEventListener("click", () => act(() => api.removePasskey(key.id)));
      const made = new Date(key.created * 1000).toLocaleDateString(document.documentElement.lang || undefined);
      list.append(h("li", { "data-testid": "passkey" }, t("account.passkey", { date: made }), " ", remove));
    }
  };
  const act = async (work) => {
    error.textContent = "";
    try {
      await work();
      await show();
    } catch (failure) {
      error.textContent = refusal(failure);
    }
  };
  add.addEventListener("click", () => {
    confirm.hidden = false;
    add.hidden = true;
    password.focus();
  });
  confirm.addEventListener("submit", (event) => {
    event.preventDefault();
    act(async () => {
      await api.addPasskey(password.value);
      password.value = "";
      confirm.hidden = true;
      add.hidden = false;
    });
  });
  show().catch(() => {}); // the list is a convenience: adding works without it
  return h("div", { class: "passkeys" }, list, add, confirm);
}

function signInForm(panel) {
  clear(panel);
  const field = (id, label, attrs) =>
    h("label", { class: "field" }, h("span", { class: "field-label" }, t(label)), h("input", { id, required: true, ...attrs }));
  const error = h("p", { class: "error-line", role: "alert", id: "account-error" });
  const form = h(
    "form",
    { id: "account-form", class: "account-form", novalidate: true },
    field("account-name", "account.name", { name: "username", type: "text", autocomplete: "username", maxlength: 30 }),
    field("account-password", "account.password", {
      name: "password",
      type: "password",
      autocomplete: "current-password",
      minlength: 8,
      maxlength: 256,
    }),
    error,
    h(
      "div",
      { class: "row-actions" },
      h("button", { type: "submit", id: "sign-in", class: "primary" }, t("account.sign_in")),
      h("button", { type: "button", id: "sign-up" }, t("account.sign_up")),
    ),
  );
  async function send(signUp) {
    error.textContent = "";
    const name = $("#account-name", form).value.trim();
    const password = $("#account-password", form).value;
    try {
      signedIn(panel, await (signUp ? api.signUp(name, password) : api.signIn(name, password)));
    } catch (failure) {
      error.textContent = refusal(failure);
    }
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    send(false);
  });
  $("#sign-up", form).addEventListener("click", () => send(true));
  if (passkeysHere()) {
    const passkey = h("button", { type: "button", id: "passkey-sign-in" }, t("account.passkey_sign_in"));
    passkey.addEventListener("click", async () => {
      error.textContent = "";
      try {
        signedIn(panel, await api.signInWithPasskey());
      } catch (failure) {
        error.textContent = refusal(failure, PASSKEY_REFUSALS);
      }
    });
    $(".row-actions", form).append(passkey);
  }
  // folded to one line: the lobby's own business (a table) stays at the top of a phone's screen
  panel.setAttribute("aria-labelledby", "account-title");
  panel.append(
    h("details", { id: "account-open" }, h("summary", { id: "account-title" }, t("account.title")), h("p", { class: "help" }, t("account.help")), form),
  );
}
