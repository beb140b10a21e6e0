// Crisp's service worker: the offline shell (docs/web-client.md, "Offline shell").
// Served at /sw.js (a stable URL, revalidated on every check), scope "/".
// - The page (a navigation, `/` or `/r/{code}`): network first, so a new deploy
//   is seen on the next load; the copy kept here is used only when the network
//   fails. Each page that arrives names its version's files (`/v/<version>/…`):
//   they are cached then, with the QR code and every language; the page names
//   every game's modules too (`<meta name="crisp-game-modules">`, shell.py),
//   which load only for a room of that game, so they are kept the same way.
// - `/v/<version>/…`: cache first, for ever (those URLs never change content);
//   a redirect (an older version's URL) is never kept.
// - The manifest and the icons: network first, the copy when offline.
// - Nothing else (`/api/…`, `/ws/…`, `/metrics`) is touched.
// The caches of versions older than the last two are deleted; of the pages, the
// home page and the last room's page are kept.
// - A room's page (`/r/{code}`) of a room this phone has a seat in (the page lists
//   them in the cache `crisp-seats`, storage.js) comes with `class="seated"` on
//   <html>: its first screen is then the room's ("Connecting…"), not the join
//   form of a stranger, before the client even runs.

const PAGES = 'crisp-pages';
const STABLE = 'crisp-stable';
const VERSION_CACHE = 'crisp-v-';
const KEEP_VERSIONS = 2;
const VERSIONED = /^\/v\/([A-Za-z0-9]+)\//;
const NAMED = /\/v\/([A-Za-z0-9]+)\/([^"'\s<>?#]+)/g;
const LATE = ['js/qr.js', 'vendor/qrcode-generator/qrcode.mjs', 'i18n/en.json', 'i18n/ar.json', 'i18n/id.json'];
const PAGE_PATH = /^\/(r\/[^/]+\/?)?$/;
const ROOM_PATH = /^\/r\/([^/]+)\/?$/;
const SEATS = 'crisp-seats';

// Everything this worker is keeping (pages, and the files they name): a page asks
// which versions are kept once the keeping begun before its question is over.
let keeping = Promise.resolve();
function track(work) {
  keeping = Promise.all([keeping, work.catch(() => null)]);
  return work;
}

self.addEventListener('install', (event) => {
  event.waitUntil(track(keepPage(new Request('/'))).catch(() => null).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

// A page's questions (app.js). 'claim': `claim()` above takes the pages that are
// running then, not one still loading (its navigation began before this worker was
// active): such a page asks to be taken. 'kept?': the versions whose files are kept,
// answered once what is being kept now is (the page announces it: offline ready).
self.addEventListener('message', (event) => {
  const type = event.data && event.data.type;
  if (type === 'claim') event.waitUntil(self.clients.claim());
  else if (type === 'kept?' && event.source) {
    event.waitUntil(keeping.then(() => caches.keys()).then((names) => {
      const versions = names.filter((n) => n.startsWith(VERSION_CACHE))
        .map((n) => n.slice(VERSION_CACHE.length));
      event.source.postMessage({ type: 'kept', versions });
    }));
  }
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (req.mode === 'navigate' || PAGE_PATH.test(url.pathname)) {
    if (PAGE_PATH.test(url.pathname)) event.respondWith(page(req, url, event));
    return;
  }
  if (VERSIONED.test(url.pathname)) event.respondWith(versioned(req, url));
  else if (url.pathname === '/manifest.webmanifest' || url.pathname.startsWith('/icons/')) event.respondWith(stable(req));
});

/** The page from the network (kept, with its files); offline, the copy kept. */
async function page(req, url, event) {
  let res;
  try {
    res = await fetch(req);
    if (res.ok) event.waitUntil(track(keep(url.pathname, res.clone())));
  } catch (err) {
    const cache = await caches.open(PAGES);
    res = (await cache.match(url.pathname)) || (await cache.match('/'));
    if (!res) throw err;
  }
  return seatedPage(url, res);
}

/** A seated player's room page: marked `seated` on <html> (the first screen's CSS
 * then shows the room's, not the join form). Any other answer as it came. */
async function seatedPage(url, res) {
  const m = url.pathname.match(ROOM_PATH);
  if (!m || !res.ok || !(res.headers.get('content-type') || '').startsWith('text/html')) return res;
  let seated = false;
  try {
    const code = decodeURIComponent(m[1]).toUpperCase().replace(/[^A-Z0-9]/g, '');
    seated = !!(await (await caches.open(SEATS)).match(`/__seat/${code}`));
  } catch { /* no list: not seated */ }
  if (!seated) return res;
  const html = (await res.text()).replace(/<html\b([^>]*)>/, '<html$1 class="seated">');
  const headers = new Headers(res.headers);
  for (const name of ['content-encoding', 'content-length', 'etag']) headers.delete(name);
  return new Response(html, { status: res.status, statusText: res.statusText, headers });
}

async function keepPage(req) {
  const res = await fetch(req, { cache: 'no-cache' });
  if (res.ok) await keep(new URL(req.url).pathname, res);
}

/** Keep a page and the files of the version it names; forget old versions. */
async function keep(path, res) {
  const html = await res.clone().text();
  const pages = await caches.open(PAGES);
  await pages.put(path, res);
  // the home page and the last room's page only
  for (const old of await pages.keys()) {
    const p = new URL(old.url).pathname;
    if (p !== '/' && p !== path) await pages.delete(old);
  }
  const files = new Map();
  for (const [, version, file] of html.matchAll(NAMED)) {
    if (!files.has(version)) files.set(version, new Set(LATE));
    files.get(version).add(file);
  }
  for (const [version, names] of files) {
    const cache = await caches.open(VERSION_CACHE + version);
    await Promise.all([...names].map(async (name) => {
      const file = `/v/${version}/${name}`;
      if (await cache.match(file)) return;
      try {
        const got = await fetch(file);
        if (got.ok && !got.redirected) await cache.put(file, got);
      } catch { /* offline again: the next page tries */ }
    }));
  }
  await prune(new Set(files.keys()));
}

async function prune(current) {
  const versions = (await caches.keys()).filter((k) => k.startsWith(VERSION_CACHE));
  const old = versions.filter((k) => !current.has(k.slice(VERSION_CACHE.length)));
  const keep = KEEP_VERSIONS - current.size;
  await Promise.all(old.slice(0, Math.max(0, old.length - keep)).map((k) => caches.delete(k)));
}

async function versioned(req, url) {
  const version = url.pathname.match(VERSIONED)[1];
  const cache = await caches.open(VERSION_CACHE + version);
  const hit = await cache.match(req, { ignoreVary: true });
  if (hit) return hit;
  const res = await fetch(req);
  if (res.ok && !res.redirected && res.status === 200) await cache.put(req, res.clone());
  return res;
}

async function stable(req) {
  const cache = await caches.open(STABLE);
  try {
    const res = await fetch(req);
    if (res.ok) await cache.put(req, res.clone());
    return res;
  } catch (err) {
    const copy = await cache.match(req);
    if (copy) return copy;
    throw err;
  }
}
