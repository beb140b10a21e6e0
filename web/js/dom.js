// A very small virtual DOM: `h()` describes a tree, `patch()` makes the real
// DOM match it while keeping the existing nodes (so focus, scroll positions and
// running CSS animations survive a re-render). No framework, no build step.
// `toHTML()` writes a tree as HTML: the page's first screen, which the server
// sends inside #app (web/shell/make.mjs); the first patch() takes those nodes
// over (their attributes count as the previous props), keeping what was typed.
// `style` is set through the CSSOM: the Content-Security-Policy allows no
// inline style attribute.

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Describe an element: h('button', {class: 'x', onclick: fn}, 'text', child...). */
export function h(tag, props, ...children) {
  return { tag, props: props || {}, children: flatten(children) };
}

function flatten(list, out = []) {
  for (const c of list) {
    if (c == null || c === false || c === true) continue;
    if (Array.isArray(c)) flatten(c, out);
    else out.push(typeof c === 'object' ? c : String(c));
  }
  return out;
}

/** Make the children of `parent` match the vnode list `vchildren`. */
export function patch(parent, vchildren) {
  const svg = parent.namespaceURI === SVG_NS;
  const list = flatten([vchildren]);
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    let el = parent.childNodes[i] || null;
    if (!el || !same(el, v)) {
      const key = typeof v === 'object' ? v.props.key : undefined;
      let found = null;
      if (key != null) {
        for (let j = i + 1; j < parent.childNodes.length; j++) {
          const c = parent.childNodes[j];
          if (c.__key === key && same(c, v)) { found = c; break; }
        }
      }
      if (found) parent.insertBefore(found, el);
      else parent.insertBefore(create(v, svg), el);
      el = parent.childNodes[i];
    }
    update(el, v, svg);
  }
  while (parent.childNodes.length > list.length) parent.removeChild(parent.lastChild);
}

function same(el, v) {
  if (typeof v === 'string') return el.nodeType === 3;
  return el.nodeType === 1 && el.localName === v.tag && el.__key === v.props.key;
}

function create(v, svg) {
  if (typeof v === 'string') return document.createTextNode(v);
  const inSvg = svg || v.tag === 'svg';
  const el = inSvg ? document.createElementNS(SVG_NS, v.tag) : document.createElement(v.tag);
  el.__key = v.props.key;
  el.__props = {};
  if (v.props.initValue != null) el.value = v.props.initValue;
  return el;
}

function update(el, v, svg) {
  if (typeof v === 'string') {
    if (el.data !== v) el.data = v;
    return;
  }
  const old = el.__props || adopt(el, v.props);
  const props = v.props;
  for (const name of Object.keys(old)) {
    if (!(name in props)) setProp(el, name, undefined, old[name]);
  }
  for (const name of Object.keys(props)) {
    if (old[name] !== props[name] || name === 'value' || name === 'checked') {
      setProp(el, name, props[name], old[name]);
    }
  }
  el.__props = props;
  if (!props.raw) patch(el, v.children);
}

/** An element the server wrote (toHTML): its attributes are its previous props;
 * an input nobody typed in yet gets the value the state asks for. */
function adopt(el, props) {
  const old = {};
  for (const a of el.attributes) old[a.name] = a.value;
  if (props.initValue != null && el.value === el.defaultValue) el.value = props.initValue;
  return old;
}

function setProp(el, name, value, oldValue) {
  if (name === 'key' || name === 'initValue' || name === 'raw') return;
  if (name === 'style') {
    el.style.cssText = value == null ? '' : String(value);
    return;
  }
  if (name.startsWith('on')) {
    const type = name.slice(2).toLowerCase();
    el.__on = el.__on || {};
    if (!el.__on[type]) {
      el.addEventListener(type, (e) => { const f = el.__on[type]; if (f) f(e); });
    }
    el.__on[type] = value || null;
    return;
  }
  if (name === 'value') {
    if (value != null && el.value !== String(value)) el.value = String(value);
    return;
  }
  if (name === 'checked' || name === 'selected') {
    el[name] = !!value;
    return;
  }
  if (value == null || value === false) {
    if (oldValue != null) el.removeAttribute(name);
    return;
  }
  el.setAttribute(name, value === true ? '' : String(value));
}

const VOID = new Set(['area', 'br', 'col', 'hr', 'img', 'input', 'link', 'meta', 'source', 'wbr']);
const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const escape = (text) => text.replace(/[&<>"]/g, (c) => ESCAPES[c]);

/** The HTML of a tree, as patch() would build it: no event handlers, `initValue`
 * as the value attribute, a <select>'s value through its options' `selected`. */
export function toHTML(vchildren) {
  return flatten([vchildren]).map((v) => (typeof v === 'string' ? escape(v) : element(v))).join('');
}

function element(v) {
  let attrs = '';
  for (const [name, value] of Object.entries(v.props)) {
    if (value == null || value === false || name === 'key' || name === 'raw' || name.startsWith('on')) continue;
    if (name === 'value' && v.tag === 'select') continue;
    const attr = name === 'initValue' ? 'value' : name;
    attrs += value === true ? ` ${attr}` : ` ${attr}="${escape(String(value))}"`;
  }
  if (VOID.has(v.tag)) return `<${v.tag}${attrs}>`;
  return `<${v.tag}${attrs}>${v.props.raw ? '' : toHTML(v.children)}</${v.tag}>`;
}
