// The page's first screen (web/shell/shells.json, put into the page by the
// server) is exactly what the client's renderer draws now, and dom.js toHTML
// writes trees as patch() builds them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { shells, OUTPUT, CODE_SLOT } from '../../../web/shell/make.mjs';
import { h, toHTML } from '../../../web/js/dom.js';

test('web/shell/shells.json is up to date (else: node web/shell/make.mjs)', async () => {
  assert.equal(readFileSync(OUTPUT, 'utf-8'), await shells(), 'stale: run node web/shell/make.mjs');
});

test('every language has a home and a join screen, loading, buttons disabled', async () => {
  const all = JSON.parse(await shells());
  assert.deepEqual(Object.keys(all), ['en', 'ar', 'id', 'pl']);
  for (const [code, s] of Object.entries(all)) {
    assert.equal(s.dir, code === 'ar' ? 'rtl' : 'ltr');
    for (const screen of [s.home, s.join]) {
      assert.match(screen, /^<header class="topbar">/);
      assert.match(screen, /role="status"/, `${code}: the loading state`);
      assert.doesNotMatch(screen, /<button[^>]*data-testid="(create-room|join-room)"(?![^>]*disabled)/);
      assert.doesNotMatch(screen, /<script|\sstyle=|\son\w+=/i, `${code}: nothing the page's policy forbids`);
    }
    assert.ok(!s.home.includes(CODE_SLOT));
    assert.equal(s.join.split(CODE_SLOT).length, 2, `${code}: the code goes in one place`);
    assert.match(s.join, new RegExp(`data-testid="room-code-input"[^>]*value="${CODE_SLOT}"`));
  }
});

test('toHTML escapes text and attributes, skips handlers and keys, writes void elements', () => {
  const tree = [
    h('p', { title: 'a "quoted" <b>', key: 'k', onclick: () => {}, hidden: true, disabled: false }, '<x> & y'),
    h('input', { initValue: 'Ana & Ben', maxlength: 20 }),
    h('select', { value: 'b' }, h('option', { value: 'a' }, 'A'), h('option', { value: 'b', selected: true }, 'B')),
  ];
  assert.equal(toHTML(tree),
    '<p title="a &quot;quoted&quot; &lt;b&gt;" hidden>&lt;x&gt; &amp; y</p>'
    + '<input value="Ana &amp; Ben" maxlength="20">'
    + '<select><option value="a">A</option><option value="b" selected>B</option></select>');
});
