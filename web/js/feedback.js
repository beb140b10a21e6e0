// Haptics and a short beep when it becomes your turn; both can be switched off.

let audio = null;

/** Browsers only let a page make sound after a tap: call this from one. */
export function unlockAudio() {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return;
  try {
    if (!audio) audio = new Ctx();
    if (audio.state === 'suspended') audio.resume();
  } catch { /* no audio */ }
}

export function beep() {
  if (!audio || audio.state !== 'running') return;
  const t0 = audio.currentTime;
  const osc = audio.createOscillator();
  const gain = audio.createGain();
  osc.type = 'sine';
  osc.frequency.setValueAtTime(660, t0);
  osc.frequency.setValueAtTime(880, t0 + 0.09);
  gain.gain.setValueAtTime(0.0001, t0);
  gain.gain.exponentialRampToValueAtTime(0.25, t0 + 0.02);
  gain.gain.exponentialRampToValueAtTime(0.0001, t0 + 0.22);
  osc.connect(gain).connect(audio.destination);
  osc.start(t0);
  osc.stop(t0 + 0.25);
}

export function buzz(pattern = [60, 40, 60]) {
  if (navigator.vibrate) {
    try { navigator.vibrate(pattern); } catch { /* not allowed */ }
  }
}

/** It became this player's turn. */
export function yourTurn(settings) {
  if (settings.vibrate) buzz();
  if (settings.sound) beep();
}
