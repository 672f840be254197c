// The lobby: the tables that are open or playing, with a Join per free seat,
// and the form that creates a table; after creating, the invite link.

import { accountPanel } from "./account.js";
import { api, storeName, storeSeat, storedName, storedSeat } from "./api.js";
import { $, clear, h } from "./dom.js";
import { has, t } from "./i18n.js";

const BOTS = ["easy", "medium", "hard", "random"];
const BOT_DELAYS = [0, 0.5, 1, 2, 4];
const ABSENT = [30, 60, 120, 300, 900];
const CLOCKS = [0, 30, 60, 120, 300];
const CHATS = ["off", "phrases", "text"];

export function presetLabel(name) {
  return has(`preset.${name}`) ? t(`preset.${name}`) : name;
}
export function presetHelp(name, serverHelp) {
  return has(`preset.${name}.help`) ? t(`preset.${name}.help`) : serverHelp || "";
}
/** A rule option's short label ("Target"), else its name as the server gives it (an option newer than the catalogs). */
export function optionLabel(name) {
  return has(`option.${name}`) ? t(`option.${name}`) : name;
}
export function optionHelp(name, serverHelp) {
  return has(`option.${name}.help`) ? t(`option.${name}.help`) : serverHelp || "";
}
/** An option's value as the server writes it ("3000", "200/100", "upcard"): true, false and none in words, the rest as sent. */
export function optionValue(text) {
  const word = String(text);
  return word === "true" || word === "false" || word === "none" ? t(`value.${word}`) : word;
}

/**
 * The table's rules as lines: the preset's name and help, then "<label>: <value> — <help>" for each
 * option changed from it (`rules.preset`, `rules.changed`); a server without `changed` sends only
 * English lines (`rules.words`), shown as they are.
 */
export function rulesLines(rules) {
  if (!rules) return [];
  if (!rules.changed || typeof rules.changed !== "object") return (rules.words || []).map(String);
  const preset = String(rules.preset || String(rules.name || "").replace(/\*$/, ""));
  const about = presetHelp(preset, "");
  const lines = [about ? t("rules.preset_line", { preset: presetLabel(preset), help: about }) : presetLabel(preset)];
  for (const [name, value] of Object.entries(rules.changed)) {
    const help = optionHelp(name, "");
    const params = { option: optionLabel(name), value: optionValue(value), help };
    lines.push(help ? t("rules.option_line", params) : `${params.option}: ${params.value}`);
  }
  return lines;
}

/** The rules in a folding panel ("The rules of this table"), or null when the server says nothing of them. */
export function rulesPanel(rules, attrs = {}) {
  const lines = rulesLines(rules);
  if (!lines.length) return null;
  const panel = h("details", { ...attrs, class: ["rules-words", attrs.class].filter(Boolean).join(" ") }, h("summary", {}, t("table.rules")));
  panel.append(h("ul", {}, lines.map((line) => h("li", {}, line))));
  return panel;
}
export function statusLabel(status) {
  return t(`status.${status}`);
}
export function seatLabel(seat) {
  return t("seat.number", { n: seat + 1 });
}
export function teamLetter(team) {
  return "ABCDEF"[team] || String(team + 1);
}
function seconds(value) {
  if (value >= 60 && value % 60 === 0) return t("time.minutes", { n: value / 60 });
  return t("time.seconds", { n: value });
}

/** The name field, shared by every Join on the screen; remembered for next time. */
function nameField(autofocus = false) {
  const input = h("input", {
    id: "name",
    name: "name",
    type: "text",
    maxlength: 30,
    autocomplete: "nickname",
    value: storedName(),
    placeholder: t("name.placeholder"),
    autofocus,
  });
  input.addEventListener("change", () => storeName(input.value.trim()));
  return h("label", { class: "field name-field" }, h("span", { class: "field-label" }, t("name.label")), input);
}

/** Sit down at a seat with the name in #name; on success go to the table. */
export async function sitDown(page, tableId, seat, errorLine) {
  const input = $("#name");
  const name = input ? input.value.trim() : "";
  errorLine.textContent = "";
  if (!name) {
    errorLine.textContent = t("name.needed");
    if (input) input.focus();
    return;
  }
  storeName(name);
  try {
    const answer = await api.sit(tableId, seat, name);
    storeSeat(tableId, { token: answer.token, seat: answer.seat, name });
    page.navigate(`/t/${encodeURIComponent(tableId)}`);
  } catch (error) {
    errorLine.textContent = t("error.sit", { message: error.message });
  }
}

function seatRow(page, info, seat, errorLine) {
  const team = h("span", { class: `team-dot team-${seat.team}`, title: t("team.letter", { letter: teamLetter(seat.team) }) }, teamLetter(seat.team));
  let who;
  let action = null;
  if (seat.kind === "bot") {
    who = h("span", { class: "seat-who" }, h("span", { class: "badge bot" }, t("bot.badge")), " ", t(`bot.${seat.bot}`));
  } else if (seat.name) {
    who = h("span", { class: "seat-who" }, seat.name, seat.connected ? null : h("span", { class: "badge muted" }, t("player.offline")));
  } else {
    who = h("span", { class: "seat-who free" }, t("seat.free"));
    if (info.status === "open") {
      action = h(
        "button",
        {
          type: "button",
          class: "small primary",
          "data-testid": "join-seat",
          "data-seat": seat.seat,
          "data-table": info.id,
          "aria-label": t("seat.join_aria", { seat: seatLabel(seat.seat) }),
          onclick: () => sitDown(page, info.id, seat.seat, errorLine),
        },
        t("seat.join"),
      );
    }
  }
  return h("li", { class: "seat-row" }, team, h("span", { class: "seat-num" }, seatLabel(seat.seat)), who, action);
}

function tableCard(page, info) {
  const errorLine = h("p", { class: "error-line", role: "alert" });
  const mine = storedSeat(info.id);
  const href = `/t/${encodeURIComponent(info.id)}`;
  const ruleName = String((info.rules && info.rules.name) || "");
  const base = ruleName.replace(/\*$/, "");
  const changed = ruleName.endsWith("*");
  const links = [];
  if (mine) links.push(h("a", { class: "button small primary", href, "data-link": true, "data-testid": "resume" }, t("lobby.resume")));
  links.push(h("a", { class: "button small", href: `${href}?watch`, "data-link": true, "data-testid": "watch-table" }, t("lobby.watch")));
  const totals = info.totals && info.deals ? t("lobby.deal_totals", { n: info.deals, totals: info.totals.join(" : ") }) : "";
  return h(
    "li",
    { class: "table-card", "data-testid": "table", "data-table": info.id },
    h(
      "div",
      { class: "table-card-head" },
      h("strong", {}, presetLabel(base) + (changed ? " " + t("rules.changed") : "")),
      h("span", { class: `badge status-${info.status}` }, statusLabel(info.status)),
      totals ? h("span", { class: "muted" }, totals) : null,
    ),
    h("ul", { class: "seat-list" }, info.seats.map((seat) => seatRow(page, info, seat, errorLine))),
    errorLine,
    h("div", { class: "row-actions" }, links),
  );
}

export function showLobby(page) {
  const view = page.view();
  view.className = "lobby";
  page.title(t("lobby.title"));
  const list = h("ul", { class: "table-list", id: "tables", "aria-live": "polite" }, h("li", { class: "muted" }, t("loading")));
  const form = h("form", { id: "create-form", class: "create-form", novalidate: true }, h("p", { class: "muted" }, t("loading")));
  view.append(
    h(
      "section",
      { class: "hero" },
      h("h1", {}, t("lobby.heading")),
      h("p", { class: "lead" }, t("lobby.lead")),
      h("p", {}, h("a", { href: "/play", "data-link": true, id: "play-now", class: "button primary" }, t("lobby.play_now"))),
      nameField(),
    ),
    accountPanel(),
    h(
      "div",
      { class: "lobby-grid" },
      h("section", { class: "panel tables-panel", "aria-labelledby": "tables-title" }, h("h2", { id: "tables-title" }, t("lobby.tables")), list),
      h("section", { class: "panel create-panel", "aria-labelledby": "create-title" }, h("h2", { id: "create-title" }, t("create.title")), form),
    ),
  );

  let stopped = false;
  let timer = null;
  let lastKey = null;
  let pages = 1; // the lobby's pages asked for ("More tables" asks for one more)
  async function refresh() {
    try {
      const tables = [];
      let next = null;
      for (let n = 0; n < pages; n++) {
        const found = await api.tables(next);
        tables.push(...found.tables);
        next = found.next;
        if (!next) break;
      }
      if (stopped) return;
      // redraw only when something changed, not under the user's fingers
      const key = JSON.stringify([next, tables.map((x) => [x.id, x.status, x.seats, x.totals, x.deals])]);
      if (key === lastKey) {
        timer = setTimeout(refresh, 5000);
        return;
      }
      lastKey = key;
      clear(list);
      if (!tables.length) list.append(h("li", { class: "empty" }, t("lobby.none")));
      for (const info of tables) list.append(tableCard(page, info));
      if (next) {
        const more = () => {
          pages += 1;
          clearTimeout(timer);
          refresh();
        };
        list.append(h("li", { class: "more" }, h("button", { type: "button", id: "more-tables", onclick: more }, t("lobby.more"))));
      }
    } catch (error) {
      if (stopped) return;
      clear(list);
      list.append(h("li", { class: "error-line" }, t("error.server", { message: error.message })));
    }
    if (!stopped) timer = setTimeout(refresh, 5000);
  }
  refresh();
  api
    .rules()
    .then((rules) => {
      if (!stopped) buildCreateForm(page, form, rules);
    })
    .catch((error) => {
      clear(form);
      form.append(h("p", { class: "error-line" }, t("error.server", { message: error.message })));
    });
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function parseExtra(text) {
  const options = {};
  const bad = [];
  for (const item of text.split(/[\n;]+/).map((s) => s.trim()).filter(Boolean)) {
    const match = item.match(/^([a-z_-]+)\s*=\s*(.+)$/i);
    if (!match) {
      bad.push(item);
      continue;
    }
    const key = match[1].replace(/-/g, "_");
    let value = match[2].trim();
    if (/^-?\d+$/.test(value)) value = Number(value);
    else if (/^(true|false)$/i.test(value)) value = value.toLowerCase() === "true";
    options[key] = value;
  }
  return { options, bad };
}

function select(id, choices, value, labelText) {
  const control = h(
    "select",
    { id, name: id },
    choices.map(([v, text]) => h("option", { value: String(v), selected: String(v) === String(value) }, text)),
  );
  return { control, field: h("label", { class: "field" }, h("span", { class: "field-label" }, labelText), control) };
}

function buildCreateForm(page, form, data) {
  clear(form);
  const presets = data.presets || {};
  const names = Object.keys(presets);
  const bots = [...BOTS, ...(data.bots || []).filter((b) => !BOTS.includes(b))]; // with the kinds installed plugins bring
  const presetSelect = select("preset", names.map((n) => [n, presetLabel(n)]), names.includes("classic") ? "classic" : names[0], t("create.preset"));
  const help = h("p", { class: "help", id: "preset-help" });
  presetSelect.control.setAttribute("aria-describedby", "preset-help");
  const target = h("input", { id: "target", name: "target", type: "number", min: 100, step: 100, inputmode: "numeric" });
  const targetField = h("label", { class: "field" }, h("span", { class: "field-label" }, t("create.target")), target);
  const seatsSelect = select("seats", [2, 3, 4, 5, 6].map((n) => [n, t("create.players", { n })]), 4, t("create.seats"));
  const partnerships = h("input", { id: "partnerships", name: "partnerships", type: "checkbox" });
  const partnershipsField = h("label", { class: "check" }, partnerships, " ", t("create.partnerships"));
  const seatList = h("ol", { class: "seat-kinds", id: "seat-kinds" });
  const pace = select("bot-delay", BOT_DELAYS.map((v) => [v, t(`pace.${String(v).replace(".", "_")}`)]), 1, t("create.bot_delay"));
  const absent = select("absent-after", ABSENT.map((v) => [v, seconds(v)]), 60, t("create.absent_after"));
  const clock = select("turn-clock", CLOCKS.map((v) => [v, v ? seconds(v) : t("create.no_clock")]), 0, t("create.turn_clock"));
  const chat = select("chat-setting", CHATS.map((v) => [v, t(`create.chat_${v}`)]), "phrases", t("create.chat"));
  const extra = h("textarea", { id: "options-extra", name: "options", rows: 3, spellcheck: "false", placeholder: "closure_biribas=2\nwild_limit=half", "aria-describedby": "options-help" });
  const optionList = h(
    "dl",
    { class: "option-list" },
    Object.entries(data.options || {}).map(([name, info]) => [
      h(
        "dt",
        {},
        h(
          "button",
          {
            type: "button",
            class: "link",
            title: t("create.option_insert"),
            "data-option": name,
            onclick: () => {
              extra.value = (extra.value.trim() ? extra.value.trim() + "\n" : "") + `${name}=${info.value}`;
              extra.focus();
            },
          },
          optionLabel(name),
        ),
        " ",
        h("code", { class: "option-id muted" }, `${name} = ${info.value}`),
      ),
      h("dd", {}, optionHelp(name, info.help)),
    ]),
  );
  const error = h("p", { class: "error-line", id: "create-error", role: "alert" });
  const submit = h("button", { type: "submit", id: "create", class: "primary big" }, t("create.submit"));

  const kinds = [];
  /** What the form shows of the preset: its target, seats and partnerships (/api/rules writes them as text: "5000", "4", "true"). */
  function presetOptions() {
    const given = (presets[presetSelect.control.value] || {}).options || {};
    return { target: Number(given.target) || 5000, seats: Number(given.seats) || 4, partnerships: String(given.partnerships) !== "false" };
  }
  function renderSeats() {
    const n = Number(seatsSelect.control.value);
    const teamsTogether = (n === 4 || n === 6) && partnerships.checked;
    partnershipsField.hidden = !(n === 4 || n === 6);
    const previous = kinds.map((k) => k.value);
    kinds.length = 0;
    clear(seatList);
    for (let seat = 0; seat < n; seat += 1) {
      const team = teamsTogether ? seat % (n / 2) : seat;
      const choice = select(
        `seat-kind-${seat}`,
        [["person", t("create.person")], ...bots.map((b) => [`bot:${b}`, has(`bot.${b}`) ? t(`bot.${b}`) : b])],
        previous[seat] || (seat === 0 ? "person" : "bot:medium"),
        seatLabel(seat),
      );
      kinds.push(choice.control);
      seatList.append(
        h("li", { class: "seat-kind" }, h("span", { class: `team-dot team-${team}`, title: t("team.letter", { letter: teamLetter(team) }) }, teamLetter(team)), choice.field),
      );
    }
  }
  function onPreset() {
    const options = presetOptions();
    const name = presetSelect.control.value;
    help.textContent = presetHelp(name, (presets[name] || {}).help);
    target.value = options.target;
    seatsSelect.control.value = String(options.seats);
    partnerships.checked = options.partnerships;
    renderSeats();
  }
  presetSelect.control.addEventListener("change", onPreset);
  seatsSelect.control.addEventListener("change", renderSeats);
  partnerships.addEventListener("change", renderSeats);

  form.append(
    h("div", { class: "form-row" }, presetSelect.field, targetField),
    help,
    h("div", { class: "form-row" }, seatsSelect.field, partnershipsField),
    h("fieldset", { class: "seats-fieldset" }, h("legend", {}, t("create.who_plays")), seatList, h("p", { class: "help" }, t("create.who_help"))),
    h("div", { class: "form-row three" }, pace.field, absent.field, clock.field),
    h("div", { class: "form-row" }, chat.field),
    h(
      "details",
      { class: "more-options" },
      h("summary", {}, t("create.more")),
      h("label", { class: "field" }, h("span", { class: "field-label" }, t("create.options")), extra),
      h("p", { class: "help", id: "options-help" }, t("create.options_help")),
      optionList,
    ),
    error,
    submit,
  );
  onPreset();

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    const base = presetOptions();
    const options = {};
    const seats = Number(seatsSelect.control.value);
    const targetValue = Number(target.value);
    if (target.value && targetValue !== base.target) options.target = targetValue;
    if (seats !== base.seats) options.seats = seats;
    const together = (seats === 4 || seats === 6) && partnerships.checked;
    if (together !== base.partnerships) options.partnerships = together;
    const parsed = parseExtra(extra.value);
    if (parsed.bad.length) {
      error.textContent = t("create.bad_option", { text: parsed.bad[0] });
      extra.focus();
      return;
    }
    Object.assign(options, parsed.options);
    const finalSeats = Number(options.seats ?? base.seats ?? seats);
    const entries = kinds.map((k) => (k.value === "person" ? { kind: "person" } : { kind: "bot", bot: k.value.split(":")[1] }));
    while (entries.length < finalSeats) entries.push({ kind: "bot", bot: "medium" });
    entries.length = finalSeats;
    const clockValue = Number(clock.control.value);
    const spec = {
      rules: presetSelect.control.value,
      options,
      seats: entries,
      bot_delay: Number(pace.control.value),
      absent_after: Number(absent.control.value),
      turn_clock: clockValue ? clockValue : null,
      chat: chat.control.value,
    };
    submit.disabled = true;
    try {
      const info = await api.create(spec);
      showCreated(page, info);
    } catch (problem) {
      error.textContent = problem.rule ? `${problem.rule}: ${problem.message}` : problem.message;
    } finally {
      submit.disabled = false;
    }
  });
}

async function copyText(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    input.select();
    try {
      return document.execCommand("copy");
    } catch {
      return false;
    }
  }
}

/** After creating: the invite link to share, and the seats to sit down at. */
export function showCreated(page, info) {
  const view = page.view();
  // the address is the table's from now on, so that a refresh (or a bookmark) keeps the invite
  history.pushState(null, "", `/t/${encodeURIComponent(info.id)}`);
  clear(view);
  view.className = "lobby";
  const link = new URL(info.invite || `/t/${encodeURIComponent(info.id)}`, location.origin).href;
  const invite = h("input", { id: "invite", type: "text", readonly: true, value: link, "aria-label": t("created.invite") });
  const copied = h("span", { class: "copied", role: "status" });
  const copy = h(
    "button",
    {
      type: "button",
      id: "copy-invite",
      class: "primary",
      onclick: async () => {
        const ok = await copyText(link, invite);
        copied.textContent = ok ? t("created.copied") : t("created.copy_failed");
      },
    },
    t("created.copy"),
  );
  const share = navigator.share
    ? h("button", { type: "button", id: "share-invite", onclick: () => navigator.share({ title: t("app.name"), text: t("created.share_text"), url: link }).catch(() => {}) }, t("created.share"))
    : null;
  invite.addEventListener("focus", () => invite.select());
  const errorLine = h("p", { class: "error-line", role: "alert" });
  const free = info.seats.filter((s) => s.kind === "person" && !s.name);
  const seatButtons = free.map((seat, i) =>
    h(
      "button",
      {
        type: "button",
        class: i === 0 ? "primary big" : "big",
        "data-testid": "join-seat",
        "data-seat": seat.seat,
        "data-table": info.id,
        onclick: () => sitDown(page, info.id, seat.seat, errorLine),
      },
      t("created.sit_at", { seat: seatLabel(seat.seat), letter: teamLetter(seat.team) }),
    ),
  );
  const href = `/t/${encodeURIComponent(info.id)}`;
  view.append(
    h(
      "section",
      { class: "panel narrow created" },
      h("h1", {}, t("created.title")),
      h("p", {}, t("created.lead")),
      h("div", { class: "invite-row" }, invite, copy, share),
      copied,
      free.length
        ? [h("h2", {}, t("created.sit")), nameField(true), h("div", { class: "seat-buttons" }, seatButtons), errorLine, h("p", { class: "help" }, t("created.starts"))]
        : h("p", {}, h("a", { class: "button primary big", href: `${href}?watch`, "data-link": true, id: "watch" }, t("lobby.watch"))),
    ),
  );
  const input = $("#name");
  if (input && !input.value) input.focus();
}
