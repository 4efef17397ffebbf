// Telling a player whose page is in the background that it is their turn: the tab's
// title says so while it lasts, and a short tone (made with the Web Audio API: no
// sound file) sounds as the turn begins — only when the player turned sound on (off
// by default; the choice is kept in localStorage).

const STORE_KEY = "cardavia.sound";
let wasMine = false;
let audio = null; // one AudioContext, made on the player's click (browsers allow sound after one)

/** Whether the player turned the turn sound on. */
export function soundOn() {
  return window.localStorage.getItem(STORE_KEY) === "on";
}

/** Turn the sound on or off, remembered for the next visit. */
export function setSound(on) {
  window.localStorage.setItem(STORE_KEY, on ? "on" : "off");
  if (on && !audio && window.AudioContext) audio = new AudioContext();
}

/** A short two-note tone; counted in ``beep.count`` (how many sounded: for tests). */
export function beep() {
  if (!window.AudioContext) return;
  audio = audio || new AudioContext();
  const start = audio.currentTime;
  for (const [i, freq] of [660, 880].entries()) {
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, start + i * 0.12);
    gain.gain.exponentialRampToValueAtTime(0.2, start + i * 0.12 + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + i * 0.12 + 0.11);
    osc.connect(gain).connect(audio.destination);
    osc.start(start + i * 0.12);
    osc.stop(start + i * 0.12 + 0.12);
  }
  beep.count++;
}
beep.count = 0;

/** The page's state of turn: the title says "your turn" while ``mine``; the tone sounds
 * once as a turn begins (when sound is on). */
export function yourTurn(mine, turnText, title) {
  document.title = mine ? `▶ ${turnText} · ${title}` : title;
  if (mine && !wasMine && soundOn()) beep();
  wasMine = mine;
}

/** The header's sound switch: a toggle button (``aria-pressed``) with ``label``. */
export function soundSwitch(label) {
  const button = document.createElement("button");
  button.id = "sound";
  button.type = "button";
  button.textContent = "♪";
  button.title = label;
  button.setAttribute("aria-label", label);
  button.setAttribute("aria-pressed", String(soundOn()));
  button.addEventListener("click", () => {
    setSound(!soundOn());
    button.setAttribute("aria-pressed", String(soundOn()));
  });
  return button;
}
