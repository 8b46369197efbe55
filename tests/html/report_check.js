// The HTML report's reading aids in Debian's Chromium (headless, driven by playwright-core from
// tests/oracles): the attention bars start on a telling row (under a causal mask never the
// first token's, whose one weight is 1); the tooltips' sentences are whole, only the worked
// arithmetic keeps its lines; a masked score's tooltip says −∞ as the table does; and near the
// top, links to every step and a summary of where each token's attention goes most (checked
// against the run's JSON dump), a sentence with a link for a long input.
//   node report_check.js ATTN CHROMIUM
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { openPage, loadPage, fixed } = require('./page.js');

const [attn, executablePath] = process.argv.slice(2);
const failures = [];
const check = (ok, what) => { if (!ok) { failures.push(what); console.log('FAIL: ' + what); } };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-report-'));
const file = (name) => path.join(dir, name);
const run = (args) => execFileSync(attn, args, { stdio: ['ignore', 'ignore', 'inherit'] });
const stepsOf = (name) => JSON.parse(fs.readFileSync(file(name), 'utf8')).steps;

const sentence = 'The cat sat on the mat';
run(['explain', sentence, '--mask', 'causal', '--json', file('causal.json'),
     '--html', file('causal.html'), '--format', 'none']);
run(['explain', sentence, '--heads', '3', '--mask', 'causal', '--json', file('heads.json'),
     '--html', file('heads.html'), '--format', 'none']);
run(['explain', 'This is book', '--json', file('plain.json'), '--html', file('plain.html'),
     '--format', 'none']);
// A and A_right tables of a wrong rule, with two heads: all start on one row
run(['explain', sentence, '--heads', '2', '--softmax-over', 'columns', '--html', file('columns.html'),
     '--format', 'none']);
const hostile = ['<script>window.__pwned=1</script>', '<img/src=x/onerror=window.__pwned=2>',
                 '&lt;b&gt;'];
fs.writeFileSync(file('hostile-qkv.json'), JSON.stringify({
  schema: 'attn.qkv', tokens: hostile,
  Q: [[1, 0], [0, 1], [1, 1]], K: [[1, 0], [0, 1], [2, 0]], V: [[1], [2], [3]] }));
run(['explain', '--qkv', file('hostile-qkv.json'), '--html', file('hostile.html'), '--format', 'none']);
const long = Array.from({ length: 60 }, (_, i) => 'w' + i).join(' ');
run(['explain', long, '--heads', '2', '--html', file('long.html'), '--format', 'none']);

(async () => {
  const { browser, page, problems } = await openPage(executablePath);
  try {
    const open = (name) => loadPage(page, problems, check, file(name));

    // 1. the bars under every attention table, and the lines view, start on one row of the
    // page: among the rows with more than one nonzero weight in some table, the one whose
    // largest weight times its nonzero count (even shares) is the largest in any table; with a
    // causal mask never the first row, and not an early row for its few keys
    for (const name of ['causal', 'heads', 'plain', 'columns']) {
      await open(name + '.html');
      const tables = await page.evaluate(() => Array.from(document.querySelectorAll('table.attention'), (t) => ({
        step: t.getAttribute('data-step'),
        rows: Array.from(t.querySelectorAll('tbody tr'), (tr) => ({
          label: tr.querySelector('th').textContent,
          active: tr.classList.contains('active'),
          weights: Array.from(tr.querySelectorAll('td[data-v]'), (td) => Number(td.getAttribute('data-v'))) })),
        bars: document.getElementById('bars-' + t.getAttribute('data-step')).querySelector('b').textContent })));
      const lines = await page.evaluate(() => Number(document.querySelector('#lines-view svg').getAttribute('data-query')));
      check(tables.length > 0, `${name}: attention tables`);
      const n = tables[0].rows.length;
      const nonzero = (ws) => ws.filter((w) => w > 0).length;
      const informative = (q) => tables.some((t) => nonzero(t.rows[q].weights) > 1);
      const focus = (q) => Math.max(...tables.map((t) => Math.max(...t.rows[q].weights) * nonzero(t.rows[q].weights)));
      const pool = [...Array(n).keys()].filter(informative);
      const top = Math.max(...pool.map(focus));
      const want = pool.find((q) => focus(q) === top);
      check(want > 0 || name === 'plain', `${name}: the telling row is not the first`);
      check(lines === want, `${name}: the lines view starts on query ${lines}, expected ${want}`);
      for (const t of tables) {
        const active = t.rows.map((r, q) => (r.active ? q : -1)).filter((q) => q >= 0);
        check(active.length === 1 && active[0] === want,
              `${name} ${t.step}: rows ${active} active, expected only ${want}`);
        if (active.length === 1) {
          check(t.bars === t.rows[active[0]].label, `${name} ${t.step}: the bars name '${t.bars}', the active row is '${t.rows[active[0]].label}'`);
        }
      }
    }

    // 2. tooltips: sentences whole (a line that starts in lower case continues a sentence
    // wrapped at a terminal's width); the worked arithmetic keeps its lines
    await open('causal.html');
    const why = await page.evaluate(() => JSON.parse(document.getElementById('why-data').textContent));
    const keys = Object.keys(why);
    check(keys.length > 100, `causal: ${keys.length} tooltips`);
    for (const key of keys) {
      const broken = why[key].split('\n').filter((l) => /^[a-z(]/.test(l));
      check(broken.length === 0, `causal: the tooltip of ${key} has a sentence broken before ${JSON.stringify(broken[0])}`);
    }
    await page.hover('table.attention td[data-rl="mat"][data-cl="sat"]');
    const tip = await page.textContent('#tip');
    check(/where s runs over the scores of query 'mat', one per key \(its row of S′ₘ\) and max = \S+ is the largest of them \(subtracted only so that nothing overflows\)\.\n/.test(tip),
          'causal: the softmax sentence of A[mat, sat] in one line: ' + JSON.stringify(tip));
    check(/\nThe terms, one per key:\n  e\^\(/.test(tip) && /\n  e\^\([^\n]*\[mat\]\nΣ = /.test(tip),
          'causal: the terms of A[mat, sat] one per line: ' + JSON.stringify(tip));
    // the tooltip is wide enough for a line of arithmetic: none of its lines wraps
    const fits = await page.evaluate(() => {
      const tip = document.getElementById('tip');
      const widest = Math.max(...Object.values(JSON.parse(document.getElementById('why-data').textContent))
        .flatMap((t) => t.split('\n')).filter((l) => /^( |=|Σ)/.test(l)).map((l) => [...l].length));
      const probe = document.createElement('span');
      probe.style.whiteSpace = 'pre';
      probe.textContent = 'x'.repeat(widest);
      tip.replaceChildren(probe);
      tip.style.display = 'block';
      const style = getComputedStyle(tip);
      const room = tip.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      const ok = probe.getBoundingClientRect().width <= room + 0.5;
      tip.style.display = 'none';
      return { ok, widest, room };
    });
    check(fits.ok, `causal: a line of ${fits.widest} characters of arithmetic does not fit the tooltip (${fits.room} px)`);

    // 3. a masked score's tooltip: −∞, as the table shows it
    await page.hover('table[data-step="masked_scores"] td[data-rl="The"][data-cl="on"]');
    const masked = await page.textContent('#tip');
    check(masked.startsWith('masked_scores[The, on] = −∞\n'), 'causal: the masked cell\'s tooltip: ' + JSON.stringify(masked));
    check(!masked.includes('-inf'), 'causal: the masked cell\'s tooltip says -inf: ' + JSON.stringify(masked));
    check(await page.textContent('table[data-step="masked_scores"] td[data-rl="The"][data-cl="on"]') === '−∞',
          'causal: the table shows −∞');

    // 4. near the top: a link to every step, and each query's most attended key
    for (const [name, heads] of [['causal', 1], ['heads', 3], ['plain', 1]]) {
      await open(name + '.html');
      const top = await page.evaluate(() => {
        const nav = document.getElementById('contents');
        const result = document.getElementById('result');
        const firstStep = document.querySelector('section.step');
        return {
          nav: nav ? Array.from(nav.querySelectorAll('a'), (a) => a.getAttribute('href')) : null,
          targets: nav ? Array.from(nav.querySelectorAll('a'), (a) => !!document.getElementById(a.getAttribute('href').substring(1))) : [],
          sections: Array.from(document.querySelectorAll('section.step'), (s) => s.id),
          resultTop: result ? result.getBoundingClientRect().top + window.scrollY : null,
          navTop: nav ? nav.getBoundingClientRect().top + window.scrollY : null,
          stepTop: firstStep.getBoundingClientRect().top + window.scrollY,
          rows: result ? Array.from(result.querySelectorAll('tbody tr'), (tr) => ({
            query: tr.querySelector('th').textContent,
            cells: Array.from(tr.querySelectorAll('td'), (td) => td.textContent) })) : [],
          heads: result ? Array.from(result.querySelectorAll('thead a'), (a) => a.getAttribute('href')) : [],
          links: result ? Array.from(result.querySelectorAll('a'), (a) => a.getAttribute('href')) : [] };
      });
      check(top.nav !== null, `${name}: no navigation near the top`);
      check(top.resultTop !== null, `${name}: no summary near the top`);
      if (top.nav === null || top.resultTop === null) { continue; }
      check(top.navTop < top.stepTop && top.resultTop < top.stepTop, `${name}: the navigation and summary are not above the steps`);
      for (const s of top.sections) {
        check(top.nav.includes('#' + s), `${name}: the navigation has no link to ${s}`);
      }
      check(top.targets.every((t) => t), `${name}: a link of the navigation goes nowhere: ${top.nav}`);
      const ids = heads === 1 ? ['weights'] : Array.from({ length: heads }, (_, h) => `head${h + 1}.weights`);
      for (const id of ids) {
        check(top.links.includes('#step-' + id), `${name}: the summary has no link to step ${id}: ${top.links}`);
      }
      // the dump's argmax of each row, per head
      const steps = stepsOf(name + '.json');
      const values = ids.map((id) => steps.find((s) => s.id === id).values);
      const labels = steps.find((s) => s.id === ids[0]).col_labels || null;
      check(top.rows.length === values[0].length, `${name}: the summary has ${top.rows.length} rows, expected ${values[0].length}`);
      top.rows.forEach((row, q) => {
        check(row.cells.length === heads, `${name}: query ${q} has ${row.cells.length} cells, expected ${heads}`);
        values.forEach((v, h) => {
          const w = v[q].map(Number);
          const most = Math.max(...w);
          const key = w.indexOf(most);
          const keyLabel = labels ? labels[key] : row.cells[h].split(' ')[0];
          const cell = row.cells[h] || '';
          check(cell.startsWith(keyLabel) && cell.includes(fixed(most)),
                `${name}: query ${row.query}, head ${h + 1}: "${cell}", expected ${keyLabel} ${fixed(most)}`);
        });
      });
    }
    // a link goes there
    await open('causal.html');
    await page.click('#contents a[href="#step-weights"]');
    const there = await page.evaluate(() => {
      const box = document.getElementById('step-weights').getBoundingClientRect();
      return { hash: location.hash, top: box.top };
    });
    check(there.hash === '#step-weights' && Math.abs(there.top) < 5, `causal: the link to the weights lands at ${JSON.stringify(there)}`);

    // hostile tokens stay text in the summary
    await open('hostile.html');
    const hostileTop = await page.evaluate(() => ({
      queries: Array.from(document.querySelectorAll('#result tbody th'), (th) => th.textContent),
      pwned: window.__pwned, images: document.querySelectorAll('img').length }));
    check(JSON.stringify(hostileTop.queries) === JSON.stringify(hostile) && hostileTop.pwned === undefined &&
          hostileTop.images === 0, 'hostile: the summary: ' + JSON.stringify(hostileTop));

    // a long input: a sentence with links to the weights, no table
    await open('long.html');
    const longTop = await page.evaluate(() => {
      const result = document.getElementById('result');
      return result ? { text: result.textContent, rows: result.querySelectorAll('tr').length,
                        links: Array.from(result.querySelectorAll('a'), (a) => a.getAttribute('href')) } : null;
    });
    check(longTop !== null && longTop.rows === 0 && longTop.links.includes('#step-head1.weights') &&
          longTop.links.includes('#step-head2.weights') && /60 tokens/.test(longTop.text),
          'long: the summary: ' + JSON.stringify(longTop));
  } finally {
    await browser.close();
  }
  fs.rmSync(dir, { recursive: true, force: true });
  if (failures.length) {
    console.log(`${failures.length} failures`);
    process.exit(1);
  }
  console.log('the report: the bars\' first row, whole sentences in tooltips, −∞, the summary and links near the top');
})().catch((e) => { console.log(e); process.exit(1); });
