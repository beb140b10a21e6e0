// The layout checks of issue 21, run in the page (tests/web/browser_kit.py
// `layout_problems`, at every screen size and language): `opts` = {width: the
// phone's width, inside: [[selector, also up and down?], ...], host: check the
// host's mark, fit: a crowded table (4 to 8 seats) is scrolled to its top, and
// everything `inside` must then be on the screen, up and down too}. Returns the
// problems found, as sentences; [] when there are none.
(opts) => {
  const problems = [];
  const vw = innerWidth;
  const vh = innerHeight;
  const doc = document.documentElement;
  const wide = Math.max(doc.scrollWidth, document.body.scrollWidth);
  // A page wider than the phone is shrunk by the phone: the layout viewport grows.
  if (vw !== opts.width) problems.push(`the page is shrunk: laid out ${vw} px wide on a ${opts.width} px screen`);
  if (wide > opts.width + 0.5) problems.push(`the document is ${wide} px wide on a ${opts.width} px screen`);
  const hidden = (el) => {
    if (!el) return true;
    const r = el.getBoundingClientRect();
    if (r.width < 0.5 || r.height < 0.5) return true;
    return getComputedStyle(el).visibility === 'hidden' || !!el.closest('.sr-only, [hidden]');
  };
  const where = (el) => el.dataset.testid || (typeof el.className === 'string' && el.className.trim()) || el.localName;
  const round = (n) => Math.round(n);
  // A crowded table starts at its top, as the page puts it (paint.js) when it comes.
  const crowded = document.querySelector('.table.crowded');
  if (crowded && opts.fit) crowded.scrollIntoView({ block: 'start' });

  // The key elements are on the screen: inside it sideways, and up and down too
  // for those that stay in view (the timer, the log's button, the dock).
  for (const [sel, vertical] of opts.inside) {
    const el = document.querySelector(sel);
    if (hidden(el)) {
      problems.push(`${sel}: not on the page`);
      continue;
    }
    const r = el.getBoundingClientRect();
    if (r.left < -0.5 || r.right > vw + 0.5) problems.push(`${sel}: outside the screen (x ${round(r.left)}..${round(r.right)})`);
    if ((vertical || (crowded && opts.fit)) && (r.top < -0.5 || r.bottom > vh + 0.5)) {
      problems.push(`${sel}: off the screen (y ${round(r.top)}..${round(r.bottom)})`);
    }
  }

  // No control's text is clipped; nor a tag, the connection status, a notice, the
  // turn line's second line. (Card faces, and result tables that scroll on
  // their own, are not text to read here.)
  const LABELS = 'button, a[href], summary, label, .tag, .conn, .turn-sub, .crispinfo, .me-flag, '
    + '.offline-strip, .hint, .banner, .toast, .rematch-note';
  for (const el of document.querySelectorAll(LABELS)) {
    if (hidden(el) || el.closest('.card, .tablewrap')) continue;
    const r = el.getBoundingClientRect();
    if (r.right > vw + 0.5 || r.left < -0.5) {
      problems.push(`${where(el)}: cut by the screen's edge`);
      continue;
    }
    for (const n of [el, ...el.querySelectorAll('*')]) {
      if (hidden(n) || n.closest('select') || !n.textContent.trim()) continue;
      const cs = getComputedStyle(n);
      const over = n.scrollWidth > n.clientWidth + 1 || n.scrollHeight > n.clientHeight + 1;
      if (over && (n === el || cs.overflowX !== 'visible' || cs.overflowY !== 'visible')) {
        problems.push(`text clipped in ${where(n)}: ${JSON.stringify(n.textContent.trim().slice(0, 48))}`);
        break;
      }
    }
  }

  // What of a name shows, as the eye reads it: the characters inside its box,
  // less the room the ellipsis takes where it is cut.
  const visible = (el) => {
    const box = el.getBoundingClientRect();
    const clipped = el.scrollWidth > el.clientWidth + 1;
    const rtl = getComputedStyle(el).direction === 'rtl';
    let ell = 0;
    if (clipped) {
      const c = document.createElement('canvas').getContext('2d');
      c.font = getComputedStyle(el).font;
      ell = c.measureText('…').width;
    }
    let out = '';
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.data.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const r = range.getBoundingClientRect();
        if (r.width < 0.1) {
          if (node.data[i] === ' ') out += ' ';
          continue;
        }
        if (rtl ? r.left >= box.left + ell - 0.5 : r.right <= box.right - ell + 0.5) out += node.data[i];
      }
    }
    return out.replace(/\s+/g, ' ').trim() + (clipped ? '…' : '');
  };
  // Every seat can be told from every other by what its name shows.
  const seats = [...document.querySelectorAll('.opponents .seat')];
  const seen = new Map();
  for (const seat of seats) {
    const id = seat.dataset.testid;
    const label = visible(seat.querySelector('.seat-name'));
    if (!label.replace('…', '').trim()) problems.push(`${id}: no name shows`);
    if (seen.has(label)) problems.push(`${id} and ${seen.get(label)} both read ${JSON.stringify(label)}`);
    seen.set(label, id);
  }

  // The host is marked at the table, on the host's own seat (or your own cards).
  if (opts.host) {
    const v = window.crisp.state.view;
    const want = v.host === v.you ? 'me' : `seat-${v.host}`;
    const holder = (m) => (m.closest('[data-testid=me]') ? 'me' : ((m.closest('.seat') || {}).dataset || {}).testid);
    const marks = [...document.querySelectorAll('[data-testid=host-mark]')].filter((m) => {
      const r = m.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(m).visibility !== 'hidden';
    });
    if (marks.length !== 1) problems.push(`${marks.length} host marks on the table`);
    for (const m of marks) {
      const r = m.getBoundingClientRect();
      if (holder(m) !== want) problems.push(`the host mark is on ${holder(m)}, the host is ${want}`);
      if (r.left < -0.5 || r.right > vw + 0.5) problems.push('the host mark is outside the screen');
    }
  }

  // The crisp button's countdown bar never covers its seconds.
  const bar = document.querySelector('.crispbar');
  const secs = document.querySelector('.crisp-secs');
  if (bar && secs) {
    const a = bar.getBoundingClientRect();
    const b = secs.getBoundingClientRect();
    if (a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5 && a.left < b.right && b.left < a.right) {
      problems.push('the crisp bar covers its seconds');
    }
  }
  return problems;
}
