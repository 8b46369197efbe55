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
      // the exact value (data-v, "-inf" for a masked score, written −∞ as the tables do)
      var exact = td.getAttribute('data-v');
      var text = table.getAttribute('data-step') + '[' + td.getAttribute('data-rl') + ', ' +
                 td.getAttribute('data-cl') + '] = ' +
                 (exact === null ? td.textContent
                  : exact === '-inf' ? '\u2212\u221e' : exact === 'inf' ? '\u221e' : exact);
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
  // The row a view starts on: the most focused among those that give more than one key a
  // nonzero weight, the most telling. A row with one such key (under a causal mask the first
  // token's) has its weight 1 whatever the numbers, so it tells nothing; when every row is like
  // that, the first row. "Focused" is the largest weight times the number of keys weighed: how
  // many times an even share it is (0.8 of 2 keys is 1.6 shares, 0.5 of 6 is 3), so that a
  // causal mask's early rows, whose few keys make every weight large, do not win by that.
  // rows[q] holds query q's weights in each table or head (the largest in any of them counts),
  // and the first row wins a tie. Returns -1 for no rows.
  var mostTelling = function (rows) {
    var best = -1, bestRank = [-1, -1];
    rows.forEach(function (lists, q) {
      var spread = 0, focus = 0;
      lists.forEach(function (weights) {
        var nonzero = 0, largest = 0;
        weights.forEach(function (w) {
          if (typeof w === 'number' && w > 0) { nonzero++; largest = Math.max(largest, w); }
        });
        spread = Math.max(spread, nonzero);
        focus = Math.max(focus, largest * nonzero);
      });
      var rank = [spread > 1 ? 1 : 0, focus];
      if (rank[0] > bestRank[0] || (rank[0] === bestRank[0] && rank[1] > bestRank[1])) {
        bestRank = rank;
        best = q;
      }
    });
    return best;
  };
  // one start for the whole page: every attention table's bars (each head's, A and A_right)
  // and the lines view begin on the same query, chosen over all of them
  var weightsOf = function (tr) {
    return Array.prototype.map.call(tr.querySelectorAll('td[data-v]'),
                                    function (td) { return parseFloat(td.getAttribute('data-v')) || 0; });
  };
  var pageRows = [];
  document.querySelectorAll('table.attention').forEach(function (table) {
    table.querySelectorAll('th.query').forEach(function (th, q) {
      (pageRows[q] = pageRows[q] || []).push(weightsOf(th.parentElement));
    });
  });
  var pageStart = mostTelling(pageRows);
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
    // start on the page's row (pageStart, above), the one the lines view starts on too
    var queryCells = table.querySelectorAll('th.query');
    var best = pageStart >= 0 && pageStart < queryCells.length ? queryCells[pageStart].parentElement
               : null;
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
    // a cell's pixels: the picture fits the page's width and at most 1600 px of height (a
    // head's 768 × 64 slice of a checkpoint's weights would otherwise be 9,216 px tall)
    var size = Math.max(1, Math.min(12, Math.floor(room / wide), Math.floor(1600 / rows)));
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
  // the lines view: the query tokens on the left, the keys on the right; from the query
  // hovered, focused or clicked, a line to every key it gives a nonzero weight (a masked pair's
  // weight is exactly 0: no line), as wide as the weight times data.widthOfOne, one colour per
  // head; a box per head shows or hides its lines. Built with DOM methods, tokens as text.
  var linesView = document.getElementById('lines-view');
  if (linesView) {
    var lines = JSON.parse(document.getElementById('lines-data').textContent);
    var svgNS = 'http://www.w3.org/2000/svg';
    var count = lines.heads.length, labels = lines.labels;
    var palette = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#000000',
                   '#8c564b'];
    var colourOf = function (h) {
      return count <= palette.length ? palette[h]
                                     : 'hsl(' + Math.round(h * 360 / count) + ',75%,38%)';
    };
    var visible = lines.heads.map(function () { return true; });
    var element = function (tag, className, text) {
      var e = document.createElement(tag);
      if (className) { e.className = className; }
      if (text !== undefined) { e.textContent = text; }
      return e;
    };
    if (count > 1) {
      var boxes = element('div', 'lines-heads');
      lines.heads.forEach(function (_, h) {
        var label = element('label');
        var box = element('input');
        box.type = 'checkbox';
        box.checked = true;
        box.setAttribute('data-head', String(h + 1));
        var swatch = element('span', 'swatch');
        swatch.style.background = colourOf(h);
        label.appendChild(box);
        label.appendChild(swatch);
        label.appendChild(document.createTextNode('head ' + (h + 1)));
        box.addEventListener('change', function () {
          visible[h] = box.checked;
          draw(current);
        });
        boxes.appendChild(label);
      });
      linesView.appendChild(boxes);
    }
    var caption = element('p', 'lines-caption');
    caption.setAttribute('aria-live', 'polite');
    var board = element('div', 'lines-board');
    var queries = element('div', 'lines-col queries');
    var keys = element('div', 'lines-col keys');
    var svg = document.createElementNS(svgNS, 'svg');
    var width = 260;
    labels.forEach(function (text, i) {
      var q = element('button', 'lines-token', text);
      q.type = 'button';
      q.setAttribute('data-q', String(i));
      ['mouseenter', 'focus', 'click'].forEach(function (what) {
        q.addEventListener(what, function () { draw(i); });
      });
      queries.appendChild(q);
      var k = element('span', 'lines-token', text);
      k.setAttribute('data-k', String(i));
      keys.appendChild(k);
    });
    board.appendChild(queries);
    board.appendChild(svg);
    board.appendChild(keys);
    linesView.appendChild(caption);
    linesView.appendChild(board);
    var current = 0;
    // draws query q's lines for the heads shown; says what it drew
    var draw = function (q) {
      current = q;
      var box = svg.getBoundingClientRect();
      var middle = function (e) {
        var r = e.getBoundingClientRect();
        return r.top + r.height / 2 - box.top;
      };
      var row = queries.children[0].getBoundingClientRect().height;
      var apart = Math.min(3, row * 0.5 / count);  // each head's lines a little apart
      svg.replaceChildren();
      var drawn = 0, heads = [], reached = {};
      lines.heads.forEach(function (weights, h) {
        if (!visible[h]) { return; }
        heads.push(h + 1);
        var shift = (h - (count - 1) / 2) * apart;
        weights[q].forEach(function (w, c) {
          if (!(typeof w === 'number' && w > 0)) { return; }
          var line = document.createElementNS(svgNS, 'line');
          line.setAttribute('x1', '0');
          line.setAttribute('y1', String(middle(queries.children[q]) + shift));
          line.setAttribute('x2', String(width));
          line.setAttribute('y2', String(middle(keys.children[c]) + shift));
          line.setAttribute('stroke', colourOf(h));
          line.setAttribute('stroke-width', String(w * lines.widthOfOne));
          line.setAttribute('data-head', String(h + 1));
          line.setAttribute('data-key', String(c));
          line.setAttribute('data-weight', String(w));
          var text = (count > 1 ? 'head ' + (h + 1) + ': ' : '') + labels[q] + ' \u2192 ' +
                     labels[c] + ': ' + w.toFixed(lines.precision);
          line.addEventListener('mouseenter', function (e) { show(text, e.clientX, e.clientY); });
          line.addEventListener('mouseleave', hide);
          svg.appendChild(line);
          reached[c] = true;
          drawn++;
        });
      });
      queries.querySelectorAll('.active').forEach(function (e) { e.classList.remove('active'); });
      queries.children[q].classList.add('active');
      Array.prototype.forEach.call(keys.children, function (k, c) {
        k.classList.toggle('unreached', !reached[c]);
      });
      svg.setAttribute('data-query', String(q));
      caption.replaceChildren();
      var who = element('b', '', labels[q]);
      caption.appendChild(who);
      var what = count > 1 && heads.length === 0
                     ? ' (query ' + q + '): no head shown; tick a head to draw its lines'
                     : ' (query ' + q + '): ' + drawn + (drawn === 1 ? ' line' : ' lines') +
                       ', one to each key it gives a nonzero weight' +
                       (count === 1 ? ''
                        : heads.length === count ? (count === 2 ? ' in both heads' : ' in all ' + count + ' heads')
                        : ' in ' + (heads.length === 1 ? 'head ' : 'heads ') + heads.join(', '));
      caption.appendChild(document.createTextNode(what));
    };
    svg.setAttribute('width', String(width));
    svg.setAttribute('height', String(board.getBoundingClientRect().height));
    svg.setAttribute('aria-hidden', 'true');
    // start on the page's row, as the bars under the tables do (pageStart, above); with no
    // tables shown (--steps), the most telling query of the heads' weights
    current = pageStart >= 0 && pageStart < labels.length ? pageStart
              : Math.max(0, mostTelling(labels.map(function (_, q) {
                return lines.heads.map(function (weights) { return weights[q]; });
              })));
    draw(current);
  }
  root.setAttribute('data-tokens', String(tokens.length));
  root.setAttribute('data-ready', 'ok');
})();
