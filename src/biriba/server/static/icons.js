// Small line icons as inline SVG (drawn in the text's colour, hidden from
// screen readers: the button or badge around each one has its words), so that
// no icon depends on the device's emoji font.

import { svg } from "./dom.js";

const PATHS = {
  bell: "M6 16V11a6 6 0 0 1 12 0v5l2 2H4zM10 20a2 2 0 0 0 4 0",
  bellOff: "M6 16V11a6 6 0 0 1 9.5-4.9M18 11v5l2 2H8M10 20a2 2 0 0 0 4 0M4 4l16 16",
  chat: "M4 5h16v11H9l-5 4z",
  person: "M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0",
  eye: "M2 12s4-7 10-7 10 7 10 7-4 7-10 7S2 12 2 12zM12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6z",
  mute: "M4 9h4l5-4v14l-5-4H4zM16 9l5 6M21 9l-5 6",
  speaker: "M4 9h4l5-4v14l-5-4H4zM16 9a4 4 0 0 1 0 6M18.5 6.5a8 8 0 0 1 0 11",
  bot: "M5 9h14v10H5zM12 9V5M10 4h4M9 13h.01M15 13h.01M9 16h6M3 12v3M21 12v3",
  bulb: "M9 18h6M10 21h4M12 3a6 6 0 0 0-4 10.5c.8.8 1 1.5 1 2.5h6c0-1 .2-1.7 1-2.5A6 6 0 0 0 12 3z",
  hand: "M8 12V6a1.5 1.5 0 0 1 3 0v5M11 11V4.5a1.5 1.5 0 0 1 3 0V11M14 11V6a1.5 1.5 0 0 1 3 0v8a6 6 0 0 1-6 6h-1a5 5 0 0 1-4-2l-3-4a1.5 1.5 0 0 1 2.3-2L8 14",
  exit: "M10 4H5v16h5M14 8l4 4-4 4M18 12H9",
  sheet: "M5 3h14v18H5zM9 8h6M9 12h6M9 16h3",
  sort: "M7 4v16M3 8l4-4 4 4M17 20V4M13 16l4 4 4-4",
};

/** The icon `name` (a key of PATHS) as an SVG element, `cls` added to its classes. */
export function icon(name, cls = "") {
  return svg(
    "svg",
    { viewBox: "0 0 24 24", width: 18, height: 18, "aria-hidden": "true", focusable: "false", class: `icon icon-${name}${cls ? " " + cls : ""}` },
    svg("path", { d: PATHS[name], fill: "none", stroke: "currentColor", "stroke-width": 2, "stroke-linecap": "round", "stroke-linejoin": "round" }),
  );
}
