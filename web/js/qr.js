// QR code of the join link, drawn as one SVG path (vendored qrcode-generator, MIT).
// Loaded only for the lobby (lazy.js).

import qrcode from '../vendor/qrcode-generator/qrcode.mjs';
import { h } from './dom.js';

const cache = new Map();

function pathFor(text) {
  if (cache.has(text)) return cache.get(text);
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  const n = qr.getModuleCount();
  let d = '';
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      if (qr.isDark(r, c)) d += `M${c + 4} ${r + 4}h1v1h-1z`;
    }
  }
  const out = { d, size: n + 8 }; // 4 modules of quiet zone each side
  cache.set(text, out);
  return out;
}

/** An <svg> vnode with the QR code of `text`. */
export function qrSvg(text, label) {
  const { d, size } = pathFor(text);
  return h('svg', {
    viewBox: `0 0 ${size} ${size}`, role: 'img', 'aria-label': label,
    'shape-rendering': 'crispEdges', class: 'qr-svg',
  },
  h('rect', { width: size, height: size, fill: '#fff' }),
  h('path', { d, fill: '#000' }));
}
