// The side: the story of the deal, the chat and the score sheet.  On a wide
// screen it is a column beside the board, all three parts in view; on a phone
// (screens.css's same media query) it is a sheet over the table, one part at a
// time, opened from the table's tools and closed by ✕, Esc or a tap beside it,
// so that the table itself never has to scroll.

import { h } from "../dom.js";
import { t } from "../i18n.js";

/** The screens where the side is a sheet over the table (screens.css says the same; its wide screens are all the others). */
export const SHEET_SCREENS = "(width < 800px), (orientation: landscape) and (height <= 560px)";

const TABS = [
  ["log", "side.log"],
  ["chat", "chat.title"],
  ["sheet", "side.score"],
];

export function sideIsSheet() {
  return window.matchMedia(SHEET_SCREENS).matches;
}

/** The aside holding the panels (each with its `data-tab`), with the sheet's tabs and close button. */
export function makeSide(el, ...panels) {
  el.sideTabs = {};
  const tabs = h("div", { class: "side-tabs", role: "group", "aria-label": t("side.label") });
  for (const [tab, key] of TABS) {
    el.sideTabs[tab] = h("button", { type: "button", class: "side-tab small", id: `side-tab-${tab}`, "aria-pressed": "false", "data-tab": tab }, t(key));
    tabs.append(el.sideTabs[tab]);
  }
  el.sideClose = h("button", { type: "button", class: "side-close small", id: "side-close", "aria-label": t("dialog.close") }, "✕");
  el.sideShade = h("div", { class: "side-shade", "aria-hidden": "true" });
  return h("aside", { class: "side", id: "side", "aria-label": t("side.label") }, h("div", { class: "side-head" }, tabs, el.sideClose), ...panels);
}

/** Wire the tabs, the close button, the shade and Esc to the context (after the skeleton is in the page). */
export function wireSide(ctx) {
  const { el } = ctx;
  for (const [tab, button] of Object.entries(el.sideTabs)) button.addEventListener("click", () => openSide(ctx, tab));
  el.sideClose.addEventListener("click", () => closeSide(ctx));
  el.sideShade.addEventListener("click", () => closeSide(ctx));
  el.side.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && el.side.classList.contains("open")) {
      event.preventDefault();
      event.stopPropagation();
      closeSide(ctx);
    }
  });
  el.side.before(el.sideShade);
  const screens = window.matchMedia(SHEET_SCREENS);
  const changed = () => {
    if (!screens.matches) closeSide(ctx, false);
  };
  screens.addEventListener("change", changed);
  return () => screens.removeEventListener("change", changed);
}

/** Show one part of the side: as the sheet over the table on a phone, or scrolled to in the column. */
export function openSide(ctx, tab) {
  const { el } = ctx;
  const panel = el.side.querySelector(`.side-panel[data-tab="${tab}"]`);
  if (!sideIsSheet()) {
    if (panel) scrollToPanel(panel);
    return panel;
  }
  if (!el.side.classList.contains("open")) ctx.sideOpener = document.activeElement;
  el.side.classList.add("open");
  el.side.dataset.tab = tab;
  el.side.setAttribute("role", "dialog");
  el.side.setAttribute("aria-modal", "true");
  el.sideShade.classList.add("open");
  for (const [name, button] of Object.entries(el.sideTabs)) button.setAttribute("aria-pressed", name === tab ? "true" : "false");
  for (const child of ctx.view.children) {
    if (child !== el.side && child !== el.sideShade && child.tagName !== "DIALOG") child.inert = true;
  }
  document.querySelector(".topbar")?.setAttribute("inert", "");
  el.sideTabs[tab].focus({ preventScroll: true });
  // a list laid out only now starts at its latest line
  for (const list of el.side.querySelectorAll(".log, .chat-log")) list.scrollTop = list.scrollHeight;
  return panel;
}

/** Close the sheet (focus back where it was, when asked). */
export function closeSide(ctx, refocus = true) {
  const { el } = ctx;
  if (!el.side.classList.contains("open")) return;
  el.side.classList.remove("open");
  delete el.side.dataset.tab;
  el.side.removeAttribute("role");
  el.side.removeAttribute("aria-modal");
  el.sideShade.classList.remove("open");
  for (const child of ctx.view.children) child.inert = false;
  document.querySelector(".topbar")?.removeAttribute("inert");
  if (refocus && ctx.sideOpener && document.body.contains(ctx.sideOpener)) ctx.sideOpener.focus({ preventScroll: true });
  ctx.sideOpener = null;
}

/** Scroll a panel into sight in its own scrolling box only (scrollIntoView would move the whole fixed screen). */
function scrollToPanel(panel) {
  for (let box = panel.parentElement; box && box !== document.body; box = box.parentElement) {
    const overflow = getComputedStyle(box).overflowY;
    if ((overflow === "auto" || overflow === "scroll") && box.scrollHeight > box.clientHeight) {
      box.scrollTop += panel.getBoundingClientRect().top - box.getBoundingClientRect().top - 8;
      return;
    }
  }
}
