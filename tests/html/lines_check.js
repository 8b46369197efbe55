// The HTML page's lines view (BertViz-like) in Debian's Chromium (headless, driven by
// playwright-core from tests/oracles): hovering or tabbing to a query token draws its lines,
// one per nonzero weight of its row in each head shown (counted against the run's JSON dump),
// each as thick as its weight times the width the page's words give for a weight of 1, in its
// head's colour; unticking a head hides its lines; a causal mask's blocked pairs draw none;
// one head draws in one colour; hostile tokens show as text and run nothing; a long input says
// why the view is absent.
//   node lines_check.js ATTN CHROMIUM
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { openPage, loadPage } = require('./page.js');

const [attn, executablePath] = process.argv.slice(2);
const failures = [];
const check = (ok, what) => { if (!ok) { failures.push(what); console.log('FAIL: ' + what); } };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-lines-'));
const file = (name) => path.join(dir, name);
const run = (args) => execFileSync(attn, args, { stdio: ['ignore', 'ignore', 'inherit'] });
// Each head's weights from a dump: heads[h][r][c] (one head: the step "weights")
const weightsOf = (name, heads) => {
  const steps = JSON.parse(fs.readFileSync(file(name), 'utf8')).steps;
  const id = (h) => (heads === 1 ? 'weights' : `head${h + 1}.weights`);
  return Array.from({ length: heads }, (_, h) => steps.find((s) => s.id === id(h)).values);
};

// The query the lines view starts on, as the bars under the tables start: among the queries
// that give more than one key a nonzero weight in some head, the most focused: the largest
// weight times the keys weighed (how many even shares it is), in any head (the first of
// equals); the first query when none does.
const tellingQuery = (heads) => {
  const queries = heads[0].map((_, q) => ({
    q, informative: heads.some((rows) => rows[q].filter((w) => w > 0).length > 1),
    focus: Math.max(...heads.map((rows) => Math.max(...rows[q]) * rows[q].filter((w) => w > 0).length)) }));
  const pool = queries.some((x) => x.informative) ? queries.filter((x) => x.informative) : queries;
  const top = Math.max(...pool.map((x) => x.focus));
  return pool.find((x) => x.focus === top).q;
};

const sentence = 'The cat sat on the mat';
run(['explain', sentence, '--heads', '4', '--json', file('four.json'), '--html', file('four.html'),
     '--format', 'none']);
run(['explain', sentence, '--heads', '4', '--mask', 'causal', '--json', file('causal.json'),
     '--html', file('causal.html'), '--format', 'none']);
run(['explain', 'This is book', '--mask', 'causal', '--json', file('one.json'),
     '--html', file('one.html'), '--format', 'none']);
const hostile = ['<script>window.__pwned=1</script>', '<img/src=x/onerror=window.__pwned=2>',
                 '&lt;b&gt;', '\u202etxt'];
fs.writeFileSync(file('hostile-qkv.json'), JSON.stringify({
  schema: 'attn.qkv', tokens: hostile,
  Q: [[1, 0], [0, 1], [1, 1], [0, 0]], K: [[1, 0], [0, 1], [1, 1], [2, 0]], V: [[1], [2], [3], [4]] }));
run(['explain', '--qkv', file('hostile-qkv.json'), '--html', file('hostile.html'), '--format', 'none']);
run(['explain', Array.from({ length: 41 }, (_, i) => 'w' + i).join(' '), '--heads', '2',
     '--html', file('long.html'), '--format', 'none']);

(async () => {
  const { browser, page, problems } = await openPage(executablePath);
  try {
    const open = (name) => loadPage(page, problems, check, file(name));
    // the lines drawn now: query, and per line its head, key, weight, width and colour
    const drawn = () => page.evaluate(() => {
      const svg = document.querySelector('#lines-view svg');
      return { query: Number(svg.getAttribute('data-query')),
               caption: document.querySelector('#lines-view .lines-caption').textContent,
               lines: Array.from(svg.querySelectorAll('line'), (l) => ({
                 head: Number(l.getAttribute('data-head')), key: Number(l.getAttribute('data-key')),
                 weight: Number(l.getAttribute('data-weight')),
                 width: Number(l.getAttribute('stroke-width')), colour: l.getAttribute('stroke') })) };
    });
    // the width the page's words give a weight of 1
    const widthOfOne = async () => {
      const text = await page.innerText('#lines');
      const m = /a weight of 1 would be (\d+(?:\.\d+)?) pixels thick/.exec(text);
      check(m !== null, 'the words give the width of a weight of 1');
      return m ? Number(m[1]) : NaN;
    };
    // query q's lines against the dump: one per nonzero weight of row q in every head shown,
    // the weight the dump's, the width the weight times the width of 1, thickness in the order
    // of the weights, one colour per head
    const agrees = async (name, weights, q, shown, one) => {
      const d = await drawn();
      check(d.query === q, `${name}: query ${q} drawn (got ${d.query})`);
      let total = 0;
      const colours = new Set();
      weights.forEach((rows, h) => {
        const mine = d.lines.filter((l) => l.head === h + 1);
        const nonzero = rows[q].filter((w) => w !== 0).length;
        const want = shown.includes(h + 1) ? nonzero : 0;
        total += want;
        check(mine.length === want, `${name}: query ${q} head ${h + 1}: ${mine.length} lines, ` +
              `expected ${want}`);
        for (const l of mine) {
          check(rows[q][l.key] !== 0 && Math.abs(l.weight - rows[q][l.key]) < 1e-12,
                `${name}: head ${h + 1} ${q}→${l.key}: weight ${l.weight}, the dump ${rows[q][l.key]}`);
          check(Math.abs(l.width - l.weight * one) < 1e-9, `${name}: width ${l.width} of weight ${l.weight}`);
          colours.add(l.colour + '|' + l.head);
        }
        const byWeight = [...mine].sort((a, b) => a.weight - b.weight);
        for (let i = 1; i < byWeight.length; i++) {
          check(byWeight[i].width >= byWeight[i - 1].width &&
                (byWeight[i].weight === byWeight[i - 1].weight || byWeight[i].width > byWeight[i - 1].width),
                `${name}: head ${h + 1} thickness not in the order of the weights`);
        }
        const headColours = new Set(mine.map((l) => l.colour));
        check(headColours.size <= 1, `${name}: head ${h + 1} in ${headColours.size} colours`);
      });
      check(d.lines.length === total, `${name}: ${d.lines.length} lines, expected ${total}`);
      const perHead = new Set([...colours].map((c) => c.split('|')[0]));
      check(perHead.size === new Set([...colours].map((c) => c.split('|')[1])).size,
            `${name}: heads share a colour: ${[...colours]}`);
      check(d.caption.includes(`${total} line`), `${name}: the caption "${d.caption}" counts ${total}`);
      return d;
    };
    const query = (q) => `#lines-view button[data-q="${q}"]`;

    // four heads, no mask
    await open('four.html');
    const four = weightsOf('four.json', 4);
    const one4 = await widthOfOne();
    check(/one colour per head \(4 heads/.test(await page.innerText('#lines')), 'four: the words count 4 heads');
    check(await page.locator('#lines-view input[type=checkbox]').count() === 4, 'four: a box per head');
    await agrees('four at first', four, tellingQuery(four), [1, 2, 3, 4], one4);
    await page.hover(query(2));
    const hovered = await agrees('four hover', four, 2, [1, 2, 3, 4], one4);
    check(hovered.lines.length === 24, 'four: 24 lines from sat (6 keys × 4 heads, none zero)');
    check(/^sat \(query 2\): 24 lines, .* in all 4 heads$/.test(hovered.caption), 'four: caption ' + hovered.caption);
    // by keyboard: from the last head's box, Tab reaches the first query, Tab again the second
    await page.focus('#lines-view input[data-head="4"]');
    await page.keyboard.press('Tab');
    check(await page.evaluate(() => document.activeElement.getAttribute('data-q')) === '0',
          'four: Tab from the boxes reaches the first query');
    await agrees('four tab 0', four, 0, [1, 2, 3, 4], one4);
    await page.keyboard.press('Tab');
    await agrees('four tab 1', four, 1, [1, 2, 3, 4], one4);
    // unticking head 2 (a click) hides its lines; by keyboard (space) head 3's; ticking brings
    // head 2 back
    await page.click('#lines-view input[data-head="2"]');
    let d = await agrees('four without head 2', four, 1, [1, 3, 4], one4);
    check(/heads 1, 3, 4/.test(d.caption), `four: the caption names the heads shown: ${d.caption}`);
    await page.focus('#lines-view input[data-head="3"]');
    await page.keyboard.press('Space');
    await agrees('four without heads 2 and 3', four, 1, [1, 4], one4);
    await page.hover(query(5));
    await agrees('four hover 5 without heads 2 and 3', four, 5, [1, 4], one4);
    await page.click('#lines-view input[data-head="2"]');
    await agrees('four head 2 back', four, 5, [1, 2, 4], one4);

    // a causal mask: no line to a later token, the mask's words count the blocked pairs
    await open('causal.html');
    const causal = weightsOf('causal.json', 4);
    const oneC = await widthOfOne();
    check((await page.innerText('#lines')).includes('The mask blocks 15 of the 36 query–key pairs'),
          'causal: the words count the blocked pairs');
    // the view starts on the most telling query, as the bars do: never the first (its one
    // weight is 1 in every head)
    check(tellingQuery(causal) > 0, 'causal: the most telling query is not the first');
    await agrees('causal at first', causal, tellingQuery(causal), [1, 2, 3, 4], oneC);
    for (let q = 0; q < 6; q++) {
      await page.hover(query(q));
      d = await agrees('causal', causal, q, [1, 2, 3, 4], oneC);
      check(d.lines.length === 4 * (q + 1) && d.lines.every((l) => l.key <= q),
            `causal: query ${q} draws ${d.lines.length} lines, to keys ${d.lines.map((l) => l.key)}`);
    }

    // one head: the same view, one colour, no boxes
    await open('one.html');
    const one = weightsOf('one.json', 1);
    const oneO = await widthOfOne();
    check(await page.locator('#lines-view input[type=checkbox]').count() === 0, 'one: no boxes');
    // one head: the lines start on the row the bars under its table start on
    const barsRow = await page.evaluate(() => Array.from(document.querySelectorAll('table.attention tbody tr'))
      .findIndex((tr) => tr.classList.contains('active')));
    check(barsRow === tellingQuery(one), `one: the bars start on row ${barsRow}, the lines should too`);
    await agrees('one at first', one, barsRow, [1], oneO);
    check(!/per head/.test(await page.innerText('#lines')), 'one: the words speak of no heads');
    await page.hover(query(1));
    d = await agrees('one', one, 1, [1], oneO);
    check(d.lines.length === 2 && new Set(d.lines.map((l) => l.colour)).size === 1, 'one: 2 lines, one colour');

    // hostile tokens: text in both columns, as the tables show them; no script ran, no element
    // came from a token
    await open('hostile.html');
    const texts = await page.evaluate(() => ({
      queries: Array.from(document.querySelectorAll('#lines-view .queries .lines-token'), (e) => e.textContent),
      keys: Array.from(document.querySelectorAll('#lines-view .keys .lines-token'), (e) => e.textContent),
      table: Array.from(document.querySelectorAll('table.attention th.query'), (e) => e.textContent),
      pwned: window.__pwned, images: document.querySelectorAll('img').length,
      elements: document.querySelectorAll('#lines-view *:not(div):not(p):not(b):not(button):not(span):not(svg):not(line)').length,
    }));
    check(JSON.stringify(texts.queries) === JSON.stringify(texts.table) &&
          JSON.stringify(texts.keys) === JSON.stringify(texts.table),
          'hostile: the columns show the tokens as the table does: ' + JSON.stringify(texts));
    check(texts.queries[0] === hostile[0] && texts.queries[1] === hostile[1] && texts.queries[2] === hostile[2],
          'hostile: markup shows as text: ' + JSON.stringify(texts.queries));
    check(texts.queries[3] === '\\u202etxt', 'hostile: a control character made visible: ' + texts.queries[3]);
    check(texts.pwned === undefined && texts.images === 0 && texts.elements === 0,
          `hostile: script ran or elements made: ${JSON.stringify(texts)}`);
    await page.hover(query(0));
    d = await drawn();
    check(d.lines.length === 4 && d.caption.startsWith(hostile[0]), 'hostile: lines and caption: ' + d.caption);

    // beyond 40 tokens: no view, a note why
    await open('long.html');
    check(await page.locator('#lines-view').count() === 0, 'long: no lines view');
    const note = await page.textContent('#lines-absent');
    check(/up to 40 tokens; this input has 41/.test(note), 'long: the note says why: ' + note);
  } finally {
    await browser.close();
  }
  fs.rmSync(dir, { recursive: true, force: true });
  if (failures.length) {
    console.log(`${failures.length} failures`);
    process.exit(1);
  }
  console.log('the lines view: hover, keys, heads shown and hidden, mask, one head, hostile tokens, long input');
})().catch((e) => { console.log(e); process.exit(1); });
