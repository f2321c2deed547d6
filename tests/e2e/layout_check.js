// Checks the layout of the page it is appended to, as the browser drew it,
// and writes what it found into <body data-layout="..."> (JSON) for
// report_e2e.py's layout case to read from Chromium's --dump-dom:
//  - the page is no wider than the window, and the routine table fits it
//    (no column behind a sideways scroll);
//  - no element's content overflows its box, unless the box scrolls
//    (overflow auto or scroll);
//  - inside every SVG plot, every text label, legend swatch and bar lies
//    within the SVG, every bar within its plot's frame, and no two text
//    labels (or a label and a swatch) overlap;
//  - no two plots overlap.
(function () {
  var problems = [];
  var tol = 0.5;
  function describe(el) {
    var s = el.tagName.toLowerCase();
    if (el.id) s += '#' + el.id;
    if (el.getAttribute('class')) s += '.' + el.getAttribute('class').replace(/ /g, '.');
    var t = (el.textContent || '').trim();
    if (t) s += ' "' + t.slice(0, 40) + '"';
    return s;
  }
  function inside(a, b) {
    return a.left >= b.left - tol && a.right <= b.right + tol &&
           a.top >= b.top - tol && a.bottom <= b.bottom + tol;
  }
  function overlap(a, b) {
    var w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
    var h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    return w > tol && h > tol ? w * h : 0;
  }
  function box(r) {
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  }
  var root = document.documentElement;
  if (root.scrollWidth > window.innerWidth + 1)
    problems.push('page ' + root.scrollWidth + 'px wide in a ' + window.innerWidth + 'px window');

  // HTML boxes: content within, or the box scrolls.
  var all = document.body.querySelectorAll('*');
  for (var i = 0; i < all.length; i++) {
    var el = all[i];
    if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
    var cs = getComputedStyle(el);
    if (cs.display === 'inline' || cs.display === 'none' || cs.display === 'table-row' ||
        cs.display === 'table-row-group' || cs.display === 'table-header-group' ||
        el.tagName.toLowerCase() === 'svg' || el.tagName.toLowerCase() === 'script')
      continue;
    var scrolls = /(auto|scroll)/.test(cs.overflowX + cs.overflowY);
    if (!scrolls && (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1))
      problems.push('content overflows ' + describe(el) + ': ' + el.scrollWidth + 'x' +
                    el.scrollHeight + ' in ' + el.clientWidth + 'x' + el.clientHeight);
  }

  // The routine table fits the window: no column behind a sideways scroll.
  var wrap = document.querySelector('.table-wrap');
  if (wrap && (wrap.scrollWidth > wrap.clientWidth + 1 ||
               wrap.getBoundingClientRect().right > window.innerWidth + 1))
    problems.push('the routine table is ' + wrap.scrollWidth + 'px wide in a ' +
                  wrap.clientWidth + 'px box, in a ' + window.innerWidth + 'px window');

  // SVG plots.
  var plots = document.querySelectorAll('svg.plot');
  var plotBoxes = [];
  for (var p = 0; p < plots.length; p++) {
    var svg = plots[p], sb = box(svg.getBoundingClientRect());
    plotBoxes.push([svg, sb]);
    var name = (svg.getAttribute('class') || '') + ' "' +
               ((svg.querySelector('text.title') || {}).textContent || '') + '"';
    var frame = svg.querySelector('rect.frame');
    var fb = frame ? box(frame.getBoundingClientRect()) : sb;
    var labels = [];
    var marks = svg.querySelectorAll('text, rect.key, rect.bar');
    for (var m = 0; m < marks.length; m++) {
      var mk = marks[m], mb = box(mk.getBoundingClientRect());
      if (mb.right - mb.left <= 0 && mb.bottom - mb.top <= 0) continue;
      if (!inside(mb, sb))
        problems.push('outside its plot ' + name + ': ' + describe(mk));
      var cls = mk.getAttribute('class') || '';
      if (/\bbar\b/.test(cls) && !inside(mb, fb))
        problems.push('bar outside its frame in ' + name + ': ' + describe(mk.parentNode));
      if (mk.tagName.toLowerCase() === 'text' || /\bkey\b/.test(cls)) labels.push([mk, mb]);
    }
    for (var a = 0; a < labels.length; a++)
      for (var b = a + 1; b < labels.length; b++)
        if (overlap(labels[a][1], labels[b][1]))
          problems.push('labels overlap in ' + name + ': ' + describe(labels[a][0]) + ' and ' +
                        describe(labels[b][0]));
  }
  for (var x = 0; x < plotBoxes.length; x++)
    for (var y = x + 1; y < plotBoxes.length; y++)
      if (overlap(plotBoxes[x][1], plotBoxes[y][1]))
        problems.push('plots overlap: ' + describe(plotBoxes[x][0]) + ' and ' +
                      describe(plotBoxes[y][0]));

  // Folded rows (wrappers, pass-through frames) the table shows by default.
  var foldedShown = 0;
  var rows = document.querySelectorAll('#routines tbody tr.wrapper, #routines tbody tr.pass');
  for (var f = 0; f < rows.length; f++)
    if (getComputedStyle(rows[f]).display !== 'none') foldedShown++;

  document.body.setAttribute('data-layout', JSON.stringify({
    problems: problems, plots: plots.length, width: root.scrollWidth,
    height: root.scrollHeight, folded: rows.length, folded_shown: foldedShown}));
})();
