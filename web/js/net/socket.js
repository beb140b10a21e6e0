// The room websocket: hello with the seat's token, then updates; reconnects by
// itself with exponential backoff. What each close code means for this client
// (closeOutcome below; the table in docs/web-client.md):
//   4401 bad hello         -> fatal 'token'    (the token was refused: the caller forgets it)
//   4409 replaced          -> fatal 'replaced' (another tab took the seat; no retry)
//   4404 room gone         -> fatal 'gone'     (the room expired or was closed)
//   4429 rate limited      -> retry with backoff
//   4403 "moved ..."       -> fatal 'moved'    (the seat moved to another phone, R18.5)
//   4403, any other 44xx   -> fatal 'removed'  (kicked / removed from the room)
//   1012 restarting        -> retry at once
//   anything else, or none -> retry with backoff
// A watcher (R18.1: hello with "watch": true, no token) has no seat to lose:
//   4403 watching off      -> fatal 'watchOff'
//   4413 50 watchers       -> fatal 'watchFull' (retry with backoff once it was in:
//                             after a restart the old places free up as their leases end)
//   4401, 4404             -> fatal 'gone'     (no such room)

import { CloseCode, MessageType, MOVED_REASON, isRemoval } from '../protocol.js';

const BASE_DELAY = 500;
const MAX_DELAY = 15000;
const CONNECT_TIMEOUT = 8000;
const STALE_AFTER_HIDDEN = 30000;
const RESTART_DELAY = 50;

/**
 * What a close with `code` (and its `reason`) means for this client: a lost seat
 * ('token', 'gone', 'removed', 'moved': to another phone, R18.5), a seat taken by
 * another tab ('replaced'), reconnect at once ('now': the server restarts) or after
 * the backoff ('backoff').
 */
export function closeOutcome(code, reason = '', watching = false) {
  if (watching) {
    if (code === CloseCode.KICKED) return 'watchOff';
    if (code === CloseCode.WATCHERS_FULL) return 'watchFull';
    if (code === CloseCode.BAD_HELLO || code === CloseCode.ROOM_GONE) return 'gone';
  }
  if (code === CloseCode.BAD_HELLO) return 'token';
  if (code === CloseCode.KICKED && String(reason).startsWith(MOVED_REASON)) return 'moved';
  if (code === CloseCode.REPLACED) return 'replaced';
  if (code === CloseCode.ROOM_GONE) return 'gone';
  if (isRemoval(code)) return 'removed';
  if (code === CloseCode.RESTART) return 'now';
  return 'backoff';
}

export function socketUrl(code) {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/ws/${encodeURIComponent(code)}`;
}

export class RoomSocket {
  /**
   * @param {{code: string, token: string|null, watch?: boolean,
   *          onMessage: (msg: object) => void,
   *          onStatus: (status: 'connecting'|'open'|'reconnecting') => void,
   *          onFatal: (reason: 'token'|'replaced'|'gone'|'removed'|'moved', closeCode: number) => void}} opts
   */
  constructor(opts) {
    this.opts = opts;
    this.ws = null;
    this.attempt = 0;
    this.timer = null;
    this.watchdog = null;
    this.stopped = false;
    this.hiddenAt = null;
    this.healthy = false;
    this.everOpen = false;
    this.nextId = 1;
    this._online = () => this.reconnectNow();
    this._visible = () => {
      if (document.visibilityState === 'hidden') {
        this.hiddenAt = Date.now();
        return;
      }
      const longAway = this.hiddenAt && Date.now() - this.hiddenAt > STALE_AFTER_HIDDEN;
      this.hiddenAt = null;
      // After a long sleep an "open" socket may be dead without knowing it.
      if (longAway || !this.ws || this.ws.readyState !== WebSocket.OPEN) this.reconnectNow();
    };
    window.addEventListener('online', this._online);
    document.addEventListener('visibilitychange', this._visible);
  }

  start() {
    this.stopped = false;
    this.open();
  }

  /** Close for good (leaving the room or a fatal close). */
  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.watchdog);
    window.removeEventListener('online', this._online);
    document.removeEventListener('visibilitychange', this._visible);
    this.drop();
  }

  /** Send a client message; returns its id, or null when not connected. */
  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return null;
    const id = `m${this.nextId++}`;
    this.ws.send(JSON.stringify({ ...msg, id }));
    return id;
  }

  reconnectNow() {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.drop();
    this.open();
  }

  drop() {
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
      try { ws.close(CloseCode.NORMAL); } catch { /* already closed */ }
    }
  }

  open() {
    if (this.stopped) return;
    this.opts.onStatus(this.attempt === 0 && !this.everOpen ? 'connecting' : 'reconnecting');
    this.healthy = false;
    let ws;
    try {
      ws = new WebSocket(socketUrl(this.opts.code));
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    clearTimeout(this.watchdog);
    // Neither an open socket nor the first update within the timeout: try again.
    this.watchdog = setTimeout(() => { if (this.ws === ws) this.retry(); }, CONNECT_TIMEOUT);
    ws.onopen = () => {
      // R18.1: a watcher says so, with no token
      const hello = this.opts.watch
        ? { type: MessageType.HELLO, watch: true }
        : { type: MessageType.HELLO, token: this.opts.token };
      ws.send(JSON.stringify(hello));
    };
    ws.onmessage = (e) => {
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      const first = !!msg && msg.type === MessageType.UPDATE && !this.healthy;
      if (first) {
        clearTimeout(this.watchdog);
        this.healthy = true;
        this.everOpen = true;
        this.attempt = 0; // the next drop starts the backoff from scratch
      }
      // the first update is handed on before 'open' is said, so a client that
      // applies it later (its game's module loading) can say 'open' with it
      this.opts.onMessage(msg);
      if (first) this.opts.onStatus('open');
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      clearTimeout(this.watchdog);
      this.closed(e.code, e.reason);
    };
    ws.onerror = () => { /* onclose follows */ };
  }

  closed(code, reason = '') {
    let outcome = closeOutcome(code, reason, !!this.opts.watch);
    // a watcher already in, back after a server restart: the places of the old
    // connections free up as their leases run out (R18.1), so it waits its turn
    if (outcome === 'watchFull' && this.everOpen) outcome = 'backoff';
    if (outcome === 'now') {
      this.opts.onStatus('reconnecting');
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.open(), RESTART_DELAY);
      return undefined;
    }
    if (outcome === 'backoff') return this.retry();
    return this.fatal(outcome, code);
  }

  fatal(reason, code) {
    this.stop();
    this.opts.onFatal(reason, code);
  }

  retry() {
    if (this.stopped) return;
    this.drop();
    const delay = Math.min(MAX_DELAY, BASE_DELAY * 2 ** this.attempt) * (0.8 + Math.random() * 0.4);
    this.attempt += 1;
    this.opts.onStatus('reconnecting');
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.open(), delay);
  }
}
