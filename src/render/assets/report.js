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
  root.setAttribute('data-tokens', String(tokens.length));
  root.setAttribute('data-ready', 'ok');
})();
