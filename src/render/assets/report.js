(function () {
  var root = document.documentElement;
  window.addEventListener('error', function (e) {
    root.setAttribute('data-errors', (root.getAttribute('data-errors') || '') + e.message + ';');
  });
  var why = JSON.parse(document.getElementById('why-data').textContent);
  var tokens = JSON.parse(document.getElementById('token-data').textContent);
  var tip = document.getElementById('tip');
  function show(text, x, y) {
    tip.textContent = text;
    tip.style.display = 'block';
    var left = Math.min(x + 14, window.innerWidth - tip.offsetWidth - 8);
    var top = Math.min(y + 14, window.innerHeight - tip.offsetHeight - 8);
    tip.style.left = Math.max(8, left) + 'px';
    tip.style.top = Math.max(8, top) + 'px';
  }
  function hide() { tip.style.display = 'none'; }
  // a what-if or attn diff: what the run compared with is called
  var compared = document.getElementById('what-changed');
  var before = compared ? compared.getAttribute('data-before') : '';
  document.querySelectorAll('td[data-v], td[data-old]').forEach(function (td) {
    td.addEventListener('mouseenter', function (e) {
      var table = td.closest('table');
      var key = table.getAttribute('data-step') + '|' + td.getAttribute('data-r') + '|' +
                td.getAttribute('data-c');
      var text = table.getAttribute('data-step') + '[' + td.getAttribute('data-rl') + ', ' +
                 td.getAttribute('data-cl') + '] = ' +
                 (td.hasAttribute('data-v') ? td.getAttribute('data-v') : td.textContent);
      if (td.hasAttribute('data-old')) {
        text += '\nwas ' + td.getAttribute('data-old') + ' in ' + before;
      }
      if (why[key]) { text += '\n\n' + why[key]; }
      show(text, e.clientX, e.clientY);
    });
    td.addEventListener('mouseleave', hide);
  });
  document.querySelectorAll('.tokens span[data-old]').forEach(function (span) {
    function tell(x, y) {
      show(span.lastChild.textContent + ': was ' + span.getAttribute('data-old') + ' in ' +
           before, x, y);
    }
    span.addEventListener('mouseenter', function (e) { tell(e.clientX, e.clientY); });
    span.addEventListener('focus', function () {
      var box = span.getBoundingClientRect();
      tell(box.left, box.bottom);
    });
    span.addEventListener('mouseleave', hide);
    span.addEventListener('blur', hide);
  });
  // a query token of an attention table: highlight its row and draw its weights as bars
  document.querySelectorAll('table.attention').forEach(function (table) {
    var bars = document.getElementById('bars-' + table.getAttribute('data-step'));
    function activate(tr) {
      table.querySelectorAll('tr.active').forEach(function (r) { r.classList.remove('active'); });
      tr.classList.add('active');
      var cells = tr.querySelectorAll('td[data-v]');
      // built from text only: a token is never parsed as markup
      bars.replaceChildren();
      var head = document.createElement('div');
      head.className = 'row';
      var who = document.createElement('span');
      who.className = 'label';
      var bold = document.createElement('b');
      bold.textContent = tr.querySelector('th').textContent;
      who.appendChild(bold);
      var verb = document.createElement('span');
      verb.textContent = 'attends to';
      head.appendChild(who);
      head.appendChild(verb);
      bars.appendChild(head);
      cells.forEach(function (td) {
        var w = parseFloat(td.getAttribute('data-v')) || 0;
        var row = document.createElement('div');
        row.className = 'row';
        var label = document.createElement('span');
        label.className = 'label';
        label.textContent = td.getAttribute('data-cl');
        var fill = document.createElement('span');
        fill.className = 'fill';
        fill.style.width = Math.round(w * 300) + 'px';
        var value = document.createElement('span');
        value.textContent = td.textContent;
        row.appendChild(label); row.appendChild(fill); row.appendChild(value);
        bars.appendChild(row);
      });
    }
    table.querySelectorAll('th.query').forEach(function (th) {
      th.addEventListener('mouseenter', function () { activate(th.parentElement); });
      th.addEventListener('focus', function () { activate(th.parentElement); });
    });
    // start on the row whose attention is most focused: the most telling one
    var best = null, bestWeight = -1;
    table.querySelectorAll('th.query').forEach(function (th) {
      th.parentElement.querySelectorAll('td[data-v]').forEach(function (td) {
        var w = parseFloat(td.getAttribute('data-v')) || 0;
        if (w > bestWeight) { bestWeight = w; best = th.parentElement; }
      });
    });
    if (best) { activate(best); }
  });
  // compact heatmaps (a long input's T × T steps): drawn from their data, one pixel per cell
  // scaled up without smoothing; hover, click, focus and the arrow keys show the cells
  function bytesOf(b64) {
    var s = atob(b64), out = new Uint8Array(s.length);
    for (var i = 0; i < s.length; i++) { out[i] = s.charCodeAt(i); }
    return out;
  }
  document.querySelectorAll('.heatmap').forEach(function (box) {
    var data = JSON.parse(box.nextElementSibling.textContent);
    var rows = data.rows, cols = data.cols;
    var levels = bytesOf(data.levels);
    var values = data.mask ? null : new DataView(bytesOf(data.values).buffer);
    var sumLevels = bytesOf(data.sumLevels);
    var strip = data.sums.length ? 4 : 0;  // the Σ column: a strip of 4 cells after a blank one
    var wide = cols + (strip ? strip + 1 : 0);
    var canvas = box.querySelector('canvas');
    var rowCross = box.querySelector('.cross.row'), colCross = box.querySelector('.cross.col');
    var bars = document.getElementById('bars-' + data.step);
    var room = Math.min(box.parentElement.clientWidth || 1000, 1060);
    var size = Math.max(1, Math.min(12, Math.floor(room / wide)));
    canvas.width = wide;
    canvas.height = rows;
    canvas.style.width = (wide * size) + 'px';
    canvas.style.height = (rows * size) + 'px';
    var context = canvas.getContext('2d');
    var image = context.createImageData(wide, rows);
    var rgb = data.palette.map(function (hex) {
      return [1, 3, 5].map(function (at) { return parseInt(hex.substr(at, 2), 16); });
    });
    function paint(r, c, colour) {
      var at = 4 * (r * wide + c);
      image.data[at] = colour[0];
      image.data[at + 1] = colour[1];
      image.data[at + 2] = colour[2];
      image.data[at + 3] = 255;
    }
    for (var r = 0; r < rows; r++) {
      for (var c = 0; c < cols; c++) { paint(r, c, rgb[levels[r * cols + c]]); }
      if (strip) {
        paint(r, cols, [255, 255, 255]);
        for (var k = 1; k <= strip; k++) { paint(r, cols + k, rgb[sumLevels[r]]); }
      }
    }
    context.putImageData(image, 0, 0);
    // a what-if or attn diff: the cells that differ tinted on a canvas above, see-through
    var changed = data.changed ? bytesOf(data.changed) : null;
    var old = data.old ? new DataView(bytesOf(data.old).buffer) : null;
    if (changed) {
      var tint = document.createElement('canvas');
      tint.className = 'changes';
      tint.width = wide;
      tint.height = rows;
      tint.style.width = canvas.style.width;
      tint.style.height = canvas.style.height;
      var marks = tint.getContext('2d').createImageData(wide, rows), count = 0;
      for (var i = 0; i < rows * cols; i++) {
        if (!changed[i]) { continue; }
        var at = 4 * (Math.floor(i / cols) * wide + i % cols);
        marks.data.set([217, 95, 2, 90], at);
        count++;
      }
      tint.getContext('2d').putImageData(marks, 0, 0);
      canvas.after(tint);
      box.setAttribute('data-changed', String(count));
    }
    function value(r, c) { return values.getFloat64((r * cols + c) * 8, true); }
    function fixed(v) {
      if (!isFinite(v)) { return v < 0 ? '\u2212\u221e' : '\u221e'; }
      var s = v.toFixed(data.precision);
      return /^-0(\.0*)?$/.test(s) ? s.substring(1) : s;
    }
    function describe(r, c) {
      if (c >= cols) { return '\u03a3 of row ' + data.rowLabels[r] + ' (' + r + ') = ' + data.sums[r]; }
      var at = data.step + '[' + data.rowLabels[r] + ' (' + r + '), ' + data.colLabels[c] +
               ' (' + c + ')] = ';
      if (data.mask) {
        return at + (levels[r * cols + c] === 255 ? '0: may not attend' : '1: may attend') +
               wasText(r, c);
      }
      var v = value(r, c);
      return at + fixed(v) + (isFinite(v) && fixed(v) !== String(v) ? '  (' + v + ')' : '') +
             wasText(r, c);
    }
    function wasText(r, c) {
      if (!changed || !changed[r * cols + c]) { return ''; }
      var w = old.getFloat64((r * cols + c) * 8, true);
      return '\nwas ' + (data.mask ? String(w) : fixed(w)) + ' in ' + before;
    }
    function cross(r, c) {
      rowCross.style.cssText = 'display:block;left:0;top:' + (r * size) + 'px;width:' +
                               (wide * size) + 'px;height:' + size + 'px';
      colCross.style.cssText = 'display:block;top:0;left:' + (c * size) + 'px;height:' +
                               (rows * size) + 'px;width:' + size + 'px';
    }
    function cellAt(e) {
      var rect = canvas.getBoundingClientRect();
      return {r: Math.max(0, Math.min(rows - 1, Math.floor((e.clientY - rect.top) / size))),
              c: Math.max(0, Math.min(wide - 1, Math.floor((e.clientX - rect.left) / size)))};
    }
    var current = {r: 0, c: 0};
    // the keys a query attends to most, as bars against the largest, built from text only
    function topKeys(r) {
      var order = [];
      for (var c = 0; c < cols; c++) { order.push(c); }
      order.sort(function (a, b) { return value(r, b) - value(r, a) || a - b; });
      order = order.slice(0, 10);
      var largest = value(r, order[0]) || 1;
      bars.replaceChildren();
      var head = document.createElement('div');
      head.className = 'row';
      var bold = document.createElement('b');
      bold.textContent = data.rowLabels[r] + ' (' + r + ')';
      var verb = document.createElement('span');
      verb.textContent = 'attends most to (the ' + order.length + ' largest of its ' + cols +
                         ' weights; bars against the largest):';
      head.appendChild(bold);
      head.appendChild(verb);
      bars.appendChild(head);
      order.forEach(function (c) {
        var row = document.createElement('div');
        row.className = 'row';
        var label = document.createElement('span');
        label.className = 'label';
        label.textContent = data.colLabels[c] + ' (' + c + ')';
        var fill = document.createElement('span');
        fill.className = 'fill';
        fill.style.width = Math.round(value(r, c) / largest * 300) + 'px';
        var shown = document.createElement('span');
        shown.textContent = fixed(value(r, c));
        row.appendChild(label); row.appendChild(fill); row.appendChild(shown);
        bars.appendChild(row);
      });
    }
    function pick(r, c) {
      current = {r: r, c: c};
      cross(r, c);
      box.setAttribute('data-selected', r + ',' + c);
      if (data.weights && bars) { topKeys(r); }
    }
    canvas.addEventListener('mousemove', function (e) {
      var p = cellAt(e);
      cross(p.r, p.c);
      box.setAttribute('data-hover', p.r + ',' + p.c);
      show(describe(p.r, p.c), e.clientX, e.clientY);
    });
    canvas.addEventListener('mouseleave', function () {
      hide();
      if (box.hasAttribute('data-selected')) {
        cross(current.r, current.c);
      } else {
        rowCross.style.display = colCross.style.display = 'none';
      }
    });
    canvas.addEventListener('click', function (e) {
      var p = cellAt(e);
      pick(p.r, Math.min(p.c, cols - 1));
    });
    box.addEventListener('keydown', function (e) {
      var moves = {ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1],
                   PageUp: [-10, 0], PageDown: [10, 0]};
      var move = moves[e.key];
      if (!move) { return; }
      e.preventDefault();
      var r = Math.max(0, Math.min(rows - 1, current.r + move[0]));
      var c = Math.max(0, Math.min(cols - 1, current.c + move[1]));
      pick(r, c);
      var rect = canvas.getBoundingClientRect();
      show(describe(r, c), rect.left + c * size, rect.top + r * size);
    });
    box.addEventListener('blur', hide);
    box.setAttribute('data-drawn', String(size));
  });
  root.setAttribute('data-tokens', String(tokens.length));
  root.setAttribute('data-ready', 'ok');
})();
