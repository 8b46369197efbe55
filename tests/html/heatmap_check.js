// The HTML report of a 500-token sentence in Debian's Chromium (headless, driven by
// playwright-core from tests/oracles): the T × T steps are compact heatmaps, not tables of
// 250,000 cells, and they stay usable: drawn with the page's colours, hover a square for its
// tokens and value (the dump's, to the printed precision), click a row for the keys its query
// attends to most, the arrow keys move along the cells, the page scrolls to the next heatmap.
// And a matrix of more than 20,000 cells that is not token × token (W_Q of d_model 500, d_k 50)
// is a heatmap too, at most 1600 px tall, its tooltip naming its row and column.
//   node heatmap_check.js ATTN CHROMIUM [SCREENSHOT.png]
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { openPage, fixed } = require('./page.js');

const [attn, executablePath, screenshot] = process.argv.slice(2);
const failures = [];
const check = (ok, what) => { if (!ok) { failures.push(what); console.log('FAIL: ' + what); } };

const T = 500;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-heatmap-'));
const words = Array.from({ length: T }, (_, i) => 'w' + i);
execFileSync(attn, ['explain', words.join(' '), '--mask', 'causal', '--d-model', '8', '--d-k', '4',
                    '--html', path.join(dir, 'report.html'), '--json', path.join(dir, 'trace.json'),
                    '--format', 'none'], { stdio: ['ignore', 'ignore', 'inherit'] });
const dump = JSON.parse(fs.readFileSync(path.join(dir, 'trace.json'), 'utf8'));
const stepOf = (id) => dump.steps.find((s) => s.id === id);
const weights = stepOf('weights').values;
const scores = stepOf('scores').values;
const html = fs.readFileSync(path.join(dir, 'report.html'), 'utf8');
const mib = html.length / 1048576;
console.log(`the page: ${mib.toFixed(1)} MiB`);
check(mib < 24, `the page is ${mib.toFixed(1)} MiB, expected a compact one (under 24)`);
check(!/<table class="matrix attention"/.test(html), 'a 500 × 500 attention table was written');

(async () => {
  const { browser, page, problems } = await openPage(executablePath);
  try {
    await page.goto('file://' + path.join(dir, 'report.html'));
    await page.waitForSelector('html[data-ready="ok"]', { timeout: 120000 });
    check(problems.length === 0, 'errors on the page: ' + problems.join('; '));
    const ids = await page.$$eval('.heatmap', (boxes) => boxes.map((b) => b.getAttribute('data-step')));
    check(JSON.stringify(ids) === JSON.stringify(['scores', 'scaled_scores', 'mask', 'masked_scores', 'weights']),
          'the heatmaps are ' + JSON.stringify(ids));

    // drawn: one pixel per cell, scaled up; the colours of the tables
    const box = page.locator('.heatmap[data-step="weights"]');
    await box.evaluate((b) => b.scrollIntoView({ block: 'start' }));
    const size = Number(await box.getAttribute('data-drawn'));
    check(size >= 2, `a cell is ${size} px`);
    const pixel = (r, c) => box.evaluate((b, [r, c]) => Array.from(
      b.querySelector('canvas').getContext('2d').getImageData(c, r, 1, 1).data.slice(0, 3)), [r, c]);
    check(JSON.stringify(await pixel(0, 0)) === JSON.stringify([8, 48, 107]), 'weight 1 (w0 on itself) is not the deep blue of the tables');
    check(JSON.stringify(await pixel(0, T - 1)) === JSON.stringify([255, 255, 255]), 'a masked weight (0) is not white');
    const canvas = await box.locator('canvas').boundingBox();
    check(Math.abs(canvas.width - (T + 5) * size) < 1 && Math.abs(canvas.height - T * size) < 1,
          `the canvas is ${canvas.width}×${canvas.height}, expected ${(T + 5) * size}×${T * size}`);
    // the Σ column, a strip after a blank one: every row sums to 1, the deep blue of 1
    check(JSON.stringify(await pixel(0, T)) === JSON.stringify([255, 255, 255]), 'no blank column before Σ');
    check(JSON.stringify(await pixel(321, T + 1)) === JSON.stringify([8, 48, 107]) &&
          JSON.stringify(await pixel(321, T + 4)) === JSON.stringify([8, 48, 107]), 'the Σ of a row is not the colour of 1');

    // hover: the tooltip names the cell and gives the dump's value
    const at = (r, c) => [canvas.x + (c + 0.5) * size, canvas.y + (r + 0.5) * size];
    await page.mouse.move(...at(250, 3));
    check(await box.getAttribute('data-hover') === '250,3', 'the hovered cell is ' + await box.getAttribute('data-hover'));
    const tip = await page.textContent('#tip');
    const expected = `weights[w250 (250), w3 (3)] = ${fixed(weights[250][3])}`;
    check(tip.startsWith(expected), `the tooltip says ${JSON.stringify(tip)}, expected ${JSON.stringify(expected)}`);
    check(await page.isVisible('#tip'), 'the tooltip is not shown');
    check(await page.isVisible('.heatmap[data-step="weights"] .cross.row'), 'the row is not marked');

    await page.mouse.move(...at(250, T + 3));
    const sumTip = await page.textContent('#tip');
    check(sumTip === 'Σ of row w250 (250) = 1.0000', 'the Σ column\'s tooltip: ' + sumTip);

    // click a row: the keys its query attends to most, largest first, the dump's numbers
    await page.mouse.click(...at(400, 10));
    const bars = await page.$$eval('#bars-weights .row', (rows) => rows.map((r) => r.textContent));
    const order = weights[400].map((w, c) => [w, c]).sort((a, b) => b[0] - a[0] || a[1] - b[1]).slice(0, 10);
    check(bars.length === 11, `${bars.length} lines of bars, expected a heading and 10`);
    check(bars[0].startsWith('w400 (400)attends most to'), 'the bars are headed ' + JSON.stringify(bars[0]));
    order.forEach(([w, c], i) => {
      check(bars[i + 1] === `w${c} (${c})${fixed(w)}`, `bar ${i + 1}: ${JSON.stringify(bars[i + 1])}, expected w${c} (${c}) ${fixed(w)}`);
    });

    // keys: focus, then the arrows move the selected cell and the tooltip follows
    await box.focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    check(await box.getAttribute('data-selected') === '401,12', 'after ↓ → →: ' + await box.getAttribute('data-selected'));
    const keyTip = await page.textContent('#tip');
    check(keyTip.startsWith(`weights[w401 (401), w12 (12)] = ${fixed(weights[401][12])}`), 'the tooltip after the keys: ' + keyTip);
    const barsAfterKeys = await page.$$eval('#bars-weights .row b', (b) => b.map((x) => x.textContent));
    check(barsAfterKeys[0] === 'w401 (401)', 'the bars after the keys are for ' + barsAfterKeys[0]);

    if (screenshot) {
      await page.mouse.move(...at(120, 60));
      await page.locator('#step-weights').screenshot({ path: screenshot });
    }

    // scrolling up to the scores: another heatmap, its values signed
    const before = await page.evaluate(() => window.scrollY);
    await page.mouse.wheel(0, -2500);
    await page.waitForFunction((y) => window.scrollY < y, before);
    const scoresBox = page.locator('.heatmap[data-step="scores"]');
    await scoresBox.evaluate((b) => b.scrollIntoView({ block: 'start' }));
    const sc = await scoresBox.locator('canvas').boundingBox();
    await page.mouse.move(sc.x + (7 + 0.5) * size, sc.y + (100 + 0.5) * size);
    const scoreTip = await page.textContent('#tip');
    check(scoreTip.startsWith(`scores[w100 (100), w7 (7)] = ${fixed(scores[100][7])}`), 'the scores tooltip: ' + scoreTip);
    // the masked scores: a blocked cell is the tables' grey, its value −∞
    const masked = page.locator('.heatmap[data-step="masked_scores"]');
    await masked.evaluate((b) => b.scrollIntoView({ block: 'start' }));
    const blocked = await masked.evaluate((b) => Array.from(
      b.querySelector('canvas').getContext('2d').getImageData(499, 0, 1, 1).data.slice(0, 3)));
    check(JSON.stringify(blocked) === JSON.stringify([238, 238, 238]), 'a blocked score is not grey: ' + blocked);
    const mc = await masked.locator('canvas').boundingBox();
    await page.mouse.move(mc.x + (300 + 0.5) * size, mc.y + (20 + 0.5) * size);
    const maskedTip = await page.textContent('#tip');
    check(maskedTip === 'masked_scores[w20 (20), w300 (300)] = \u2212\u221e', 'a blocked cell\'s tooltip: ' + maskedTip);
    check(!(await page.isVisible('#bars-scores .row')), 'bars under a step that is not attention weights');

    // a large matrix that is not token × token (a checkpoint's 768 × 64 slices of weights): a
    // heatmap too, named by its rows and columns, not tokens, and no taller than 1600 px
    const wide = path.join(dir, 'wide.html');
    execFileSync(attn, ['explain', 'a b c', '--d-model', '500', '--d-k', '50', '--d-v', '50',
                        '--html', wide, '--json', path.join(dir, 'wide.json'), '--format', 'none'],
                 { stdio: ['ignore', 'ignore', 'inherit'] });
    const wq = JSON.parse(fs.readFileSync(path.join(dir, 'wide.json'), 'utf8')).steps
      .find((s) => s.id === 'W_Q').values;
    const wideHtml = fs.readFileSync(wide, 'utf8');
    const section = wideHtml.slice(wideHtml.indexOf('id="step-W_Q"'), wideHtml.indexOf('id="step-W_K"'));
    check(!/<table/.test(section), 'W_Q (500 × 50, 25,000 cells) was written as a table');
    check(/Hover a square for its row, column and value/.test(section), 'W_Q\'s note speaks of tokens');
    check(!/\(queries\)/.test(section), 'W_Q\'s heatmap calls its rows queries');
    check(/<table class="matrix/.test(wideHtml.slice(wideHtml.indexOf('id="step-Q"'))),
          'Q (3 × 50) is not a table any more');
    await page.goto('file://' + wide);
    await page.waitForSelector('html[data-ready="ok"]', { timeout: 60000 });
    const wbox = page.locator('.heatmap[data-step="W_Q"]');
    await wbox.evaluate((b) => b.scrollIntoView({ block: 'start' }));
    const wsize = Number(await wbox.getAttribute('data-drawn'));
    const wc = await wbox.locator('canvas').boundingBox();
    check(wc.height <= 1600 && wc.height === 500 * wsize, `W_Q's canvas is ${wc.height} px tall (${wsize} px a cell), expected at most 1600`);
    await page.mouse.move(wc.x + (37 + 0.5) * wsize, wc.y + (150 + 0.5) * wsize);
    const wtip = await page.textContent('#tip');
    const wexpected = `W_Q[d150 (150), q37 (37)] = ${fixed(wq[150][37])}`;
    check(wtip.startsWith(wexpected), `the W_Q tooltip says ${JSON.stringify(wtip)}, expected ${JSON.stringify(wexpected)}`);
    if (screenshot) {
      await page.locator('#step-W_Q').screenshot({ path: screenshot.replace(/\.png$/, '-wide.png') });
    }
  } finally {
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  if (failures.length) { console.log(`${failures.length} check(s) failed`); process.exit(1); }
  console.log('ok: the 500-token report and a large weight matrix are usable in Chromium');
})().catch((e) => { console.log('FAIL: ' + e.stack); process.exit(1); });
