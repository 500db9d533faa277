// Optional sound, off until the player turns it on (remembered): a soft click for a sowing,
// a chord at the end of a game. Made by the Web Audio API: no sound files to load.
let on = localStorage.getItem("mancalab.sound") === "on";
let context = null;

export function soundOn() {
  return on;
}

export function setSound(value) {
  on = value;
  localStorage.setItem("mancalab.sound", on ? "on" : "off");
}

export function sound(kind) {
  if (!on || !window.AudioContext) return;
  context = context || new AudioContext();
  const notes = kind === "end" ? [523, 659, 784] : [330];
  notes.forEach((frequency, k) => {
    const oscillator = context.createOscillator();
    const gain = context.createGain();
    oscillator.frequency.value = frequency;
    oscillator.type = "triangle";
    const start = context.currentTime + k * 0.08;
    gain.gain.setValueAtTime(0.12, start);
    gain.gain.exponentialRampToValueAtTime(0.001, start + 0.25);
    oscillator.connect(gain).connect(context.destination);
    oscillator.start(start);
    oscillator.stop(start + 0.3);
  });
}
