// The table's sounds, behind one switch (the tools' bell, off until the reader
// turns it on): a card drawn, a card discarded, a meld laid or added to, a
// biriba made, and the turn coming to you.  Short tones made by the browser
// (Web Audio), no files; each one played is also told as a `biriba-sound`
// event on the document, so that a test can hear it.

import { getPref, setPref } from "../api.js";
import { actionParts } from "../words.js";
import * as M from "./model.js";

/** Each sound: its notes (Hz), the length of each (s), and how loud. */
const SOUNDS = {
  draw: { notes: [520], length: 0.08, gain: 0.08 },
  discard: { notes: [330], length: 0.1, gain: 0.1 },
  meld: { notes: [440, 660], length: 0.1, gain: 0.1 },
  biriba: { notes: [523, 659, 784, 1047], length: 0.11, gain: 0.12 },
  turn: { notes: [660, 880], length: 0.16, gain: 0.12 },
};

let audio = null;

/** Whether the switch is on (it is off until the reader turns it on). */
export function soundOn() {
  return getPref("sound", "off") === "on";
}

/** Turn the switch on or off (from the bell or the help's check box). */
export function setSound(on) {
  setPref("sound", on ? "on" : "off");
  if (on) wake(); // within the tap: the browser lets the page's audio start
}

/**
 * Make (or wake) the page's audio: a browser starts it silenced unless a tap
 * started it, so the bell's tap calls this, and so does each sound.
 */
export function wake() {
  audio ??= new (window.AudioContext || window.webkitAudioContext)();
  if (audio.state === "suspended") audio.resume().catch(() => {});
}

/** Play a sound by name, if the switch is on. */
export function play(name) {
  if (!soundOn() || !SOUNDS[name]) return;
  document.dispatchEvent(new CustomEvent("biriba-sound", { detail: name }));
  try {
    wake();
    const { notes, length, gain } = SOUNDS[name];
    notes.forEach((frequency, i) => {
      const start = audio.currentTime + i * length;
      const osc = audio.createOscillator();
      const level = audio.createGain();
      osc.frequency.value = frequency;
      level.gain.setValueAtTime(0.0001, start);
      level.gain.exponentialRampToValueAtTime(gain, start + 0.01);
      level.gain.exponentialRampToValueAtTime(0.0001, start + length);
      osc.connect(level).connect(audio.destination);
      osc.start(start);
      osc.stop(start + length + 0.02);
    });
  } catch {
    /* no sound, no harm */
  }
}

function biribas(board) {
  return (board || []).map((team) => (team && team.melds ? team.melds.filter((m) => m.biriba).length : 0));
}

/** The sounds of what a state brought: its moves, a new biriba, and the turn coming to me. */
export function soundsOf(S, events, boardBefore, nowMine) {
  const kinds = new Set(events.filter((e) => e.kind === "action" && typeof e.action === "string").map((e) => actionParts(e.action).kind));
  const names = [];
  const before = biribas(boardBefore);
  if (biribas(S.state && S.state.board).some((n, team) => n > (before[team] || 0))) names.push("biriba");
  else if (kinds.has("meld") || kinds.has("add")) names.push("meld");
  if (kinds.has("discard")) names.push("discard");
  if (kinds.has("draw") || kinds.has("take")) names.push("draw");
  if (nowMine && M.isSeated(S)) names.push("turn");
  return names;
}
