// SPDX-License-Identifier: MIT
/*
 * reporters/flamegraph.js - the interaction of perfgate's SVG flame graphs (flamegraph.h):
 * details of the frame under the pointer, click to zoom, Reset Zoom, Search (Ctrl-F; Escape
 * resets both). The Makefile embeds this file into flamegraph.c at build time; every SVG
 * carries it in a CDATA section, so it must never contain the three characters that end one,
 * and it fetches nothing.
 *
 * What it expects of the document (flamegraph.c writes it so): the root <svg> has
 * onload="pg_init(evt)" and the layout in data-xpad (left margin), data-fw (width of the frame
 * area) and data-char-px (width of a label character), in px; each frame is a <g class="f">
 * with data-x and data-w (its position as fractions of the whole), data-d (depth) and a
 * <title>, a <rect> and a <text>; elements #details, #matched, #unzoom and #search exist.
 * The picture is complete without the script.
 */
var svg, frames, details, matched, unzoombtn, searchbtn;
var zoomed = null, searching = null;
var XPAD, FW, CHAR_PX;	// layout, px: from the <svg> element's data-xpad, -fw, -char-px
function pg_init(evt) {
  svg = document.documentElement;
  XPAD = parseFloat(svg.getAttribute('data-xpad'));
  FW = parseFloat(svg.getAttribute('data-fw'));
  CHAR_PX = parseFloat(svg.getAttribute('data-char-px'));
  frames = svg.getElementsByClassName('f');
  details = document.getElementById('details');
  matched = document.getElementById('matched');
  unzoombtn = document.getElementById('unzoom');
  searchbtn = document.getElementById('search');
  for (var i = 0; i < frames.length; i++) {
    frames[i].addEventListener('mouseover',
      function () { details.textContent = tip(this); });
    frames[i].addEventListener('mouseout', function () { details.textContent = ' '; });
    frames[i].addEventListener('click', function () { zoom(this); });
  }
  unzoombtn.addEventListener('click', unzoom);
  searchbtn.addEventListener('click', search_prompt);
  window.addEventListener('keydown', function (e) {
    if ((e.ctrlKey || e.metaKey) && e.keyCode === 70) {
      e.preventDefault(); search_prompt();
    }
    if (e.keyCode === 27) { unzoom(); reset_search(); }
  });
}
function title(g) {
  var t = g.getElementsByTagName('title')[0];
  return t ? t.textContent : '';
}
function tip(g) { return title(g).replace(/\n/g, '  |  '); }
function fname(g) { return title(g).split('\n')[0]; }
function fx(g) { return parseFloat(g.getAttribute('data-x')); }
function fw(g) { return parseFloat(g.getAttribute('data-w')); }
function fd(g) { return parseInt(g.getAttribute('data-d'), 10); }
function place(g, x, w) {
  var r = g.getElementsByTagName('rect')[0], t = g.getElementsByTagName('text')[0];
  r.setAttribute('x', x.toFixed(2)); r.setAttribute('width', w.toFixed(2));
  t.setAttribute('x', (x + 3).toFixed(2));
  var n = fname(g), fit = Math.floor((w - 6) / CHAR_PX);
  t.textContent = fit < 3 ? '' : (n.length <= fit ? n : n.substring(0, fit - 2) + '..');
}
function zoom(z) {
  var x0 = fx(z), w0 = fw(z), d0 = fd(z), eps = 1e-9;
  zoomed = z;
  unzoombtn.style.visibility = 'visible';
  for (var i = 0; i < frames.length; i++) {
    var g = frames[i], x = fx(g), w = fw(g), d = fd(g);
    if (d >= d0 && x >= x0 - eps && x + w <= x0 + w0 + eps) {
      g.style.display = ''; g.classList.remove('parent');
      place(g, XPAD + (x - x0) / w0 * FW, w / w0 * FW);
    } else if (d < d0 && x <= x0 + eps && x + w >= x0 + w0 - eps) {
      g.style.display = ''; g.classList.add('parent'); place(g, XPAD, FW);
    } else {
      g.style.display = 'none';
    }
  }
  if (searching) search(searching);
}
function unzoom() {
  zoomed = null;
  unzoombtn.style.visibility = 'hidden';
  for (var i = 0; i < frames.length; i++) {
    var g = frames[i];
    g.style.display = ''; g.classList.remove('parent');
    place(g, XPAD + fx(g) * FW, fw(g) * FW);
  }
  if (searching) search(searching);
}
function search_prompt() {
  if (searching) { reset_search(); return; }
  var term = prompt('Search frames (regular expression):', '');
  if (term) search(term);
}
function search(term) {
  var re;
  try { re = new RegExp(term); } catch (e) { return; }
  searching = term;
  var lo = zoomed ? fx(zoomed) : 0, ranges = [];
  var hi = zoomed ? fx(zoomed) + fw(zoomed) : 1;
  for (var i = 0; i < frames.length; i++) {
    var g = frames[i], r = g.getElementsByTagName('rect')[0];
    if (re.test(fname(g))) {
      r.classList.add('hit');
      var a = Math.max(fx(g), lo), b = Math.min(fx(g) + fw(g), hi);
      if (b > a) ranges.push([a, b]);
    } else {
      r.classList.remove('hit');
    }
  }
  ranges.sort(function (p, q) { return p[0] - q[0]; });
  var sum = 0, end = -1;
  for (var k = 0; k < ranges.length; k++) {
    var s = Math.max(ranges[k][0], end);
    if (ranges[k][1] > s) { sum += ranges[k][1] - s; end = ranges[k][1]; }
  }
  matched.textContent = 'Matched: ' + (100 * sum / (hi - lo)).toFixed(1) + '%';
  searchbtn.textContent = 'Reset Search';
}
function reset_search() {
  searching = null;
  for (var i = 0; i < frames.length; i++)
    frames[i].getElementsByTagName('rect')[0].classList.remove('hit');
  matched.textContent = ' ';
  searchbtn.textContent = 'Search';
}
