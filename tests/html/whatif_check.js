// What-if (--set) and attn diff pages in Debian's Chromium (headless, driven by playwright-core
// from tests/oracles): the cells that differ from the run compared with are outlined, exactly
// those (counted against the two runs' JSON dumps), each with its value before on hover or
// focus; a swapped token says what it was; the closing section is there; and on a long
// input's compact heatmaps the cells that differ are tinted, with their values before on hover.
//   node whatif_check.js ATTN CHROMIUM
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { openPage, loadPage, fixed } = require('./page.js');

const [attn, executablePath] = process.argv.slice(2);
const failures = [];
const check = (ok, what) => { if (!ok) { failures.push(what); console.log('FAIL: ' + what); } };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-whatif-'));
const run = (args) => execFileSync(attn, args, { stdio: ['ignore', 'ignore', 'inherit'] });
const file = (name) => path.join(dir, name);
const steps = (name) => JSON.parse(fs.readFileSync(file(name), 'utf8')).steps;

// Each matrix step's cells that differ between two dumps, by step id: "r,c" → value before.
function differences(before, after) {
  const out = {};
  for (const step of after) {
    const was = before.find((s) => s.id === step.id);
    if (!was || step.id === 'tokens' || !Array.isArray(step.values[0])) { continue; }
    out[step.id] = {};
    step.values.forEach((row, r) => row.forEach((v, c) => {
      if (v !== was.values[r][c]) { out[step.id][`${r},${c}`] = was.values[r][c]; }
    }));
  }
  return out;
}

// The runs: "This is book" as given (A), with a cell of X and a token changed (--set), and the
// same change as a dump compared with A by attn diff; a 45-token sentence with a changed cell.
const sentence = 'This is book';
run(['explain', sentence, '--mask', 'causal', '--json', file('a.json'), '--format', 'none']);
const settings = ['--set', 'X[is,d1]=2', '--set', 'tokens[2]=hat'];
run(['explain', sentence, '--mask', 'causal', ...settings, '--json', file('b.json'),
     '--html', file('set.html'), '--format', 'none']);
run(['diff', file('a.json'), file('b.json'), '--html', file('diff.html'), '--format', 'none']);
const expected = differences(steps('a.json'), steps('b.json'));
// X[is,d1] and the swapped token's row of X: 6 cells (the test is about something)
check(Object.keys(expected.embeddings).length === 6, 'X differs in ' + JSON.stringify(expected.embeddings));
const long = Array.from({ length: 45 }, (_, i) => 'w' + i).join(' ');
run(['explain', long, '--json', file('long-a.json'), '--format', 'none']);
run(['explain', long, '--set', 'X[w3,d1]=3', '--json', file('long-b.json'),
     '--html', file('long.html'), '--format', 'none']);
const longExpected = differences(steps('long-a.json'), steps('long-b.json'));

(async () => {
  const { browser, page, problems } = await openPage(executablePath);
  try {
    const open = (name) => loadPage(page, problems, check, file(name));

    for (const [name, before] of [['set.html', 'the run as given'], ['diff.html', file('a.json')]]) {
      await open(name);
      // exactly the cells that differ are outlined, each with its value before
      for (const [id, cells] of Object.entries(expected)) {
        const marked = await page.$$eval(`table.matrix[data-step="${id}"] td.changed`, (tds) =>
          tds.map((td) => [td.getAttribute('data-r'), td.getAttribute('data-c'), td.getAttribute('data-old')]));
        const want = Object.keys(cells).sort();
        const got = marked.map(([r, c]) => `${r},${c}`).sort();
        check(JSON.stringify(got) === JSON.stringify(want),
              `${name}: ${id} marks ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
        for (const [r, c, old] of marked) {
          check(old === fixed(cells[`${r},${c}`]), `${name}: ${id}[${r},${c}] was ${old}, expected ${fixed(cells[`${r},${c}`])}`);
        }
      }
      // the outline is drawn: a marked cell's computed style
      const outline = await page.$eval('table.matrix[data-step="weights"] td.changed', (td) =>
        getComputedStyle(td).outlineStyle + ' ' + getComputedStyle(td, '::before').content);
      check(outline === 'solid "*"', `${name}: a changed weight is drawn as ${outline}, expected an outline and *`);
      // hover a changed cell: its value now and before, and where before is
      const cell = page.locator('table.matrix[data-step="output"] td.changed').first();
      await cell.hover();
      const [r, c] = [await cell.getAttribute('data-r'), await cell.getAttribute('data-c')];
      const tip = await page.textContent('#tip');
      const was = `was ${fixed(expected.output[`${r},${c}`])} in ${before}`;
      check(await page.isVisible('#tip') && tip.includes(was),
            `${name}: hovering output[${r},${c}] shows ${JSON.stringify(tip)}, expected it to say ${JSON.stringify(was)}`);
      // a cell that did not change says nothing of before
      const same = page.locator('table.matrix[data-step="W_Q"] td').first();
      await same.hover();
      check(!(await page.textContent('#tip')).includes('was '), `${name}: an unchanged cell of W_Q speaks of its value before`);
      // the swapped token, by keyboard: focus shows what it was
      const token = page.locator('.tokens span.changed');
      check(await token.count() === 1, `${name}: ${await token.count()} tokens marked, expected 1`);
      await token.focus();
      const tokenTip = await page.textContent('#tip');
      check(tokenTip === `hat: was book in ${before}`, `${name}: the swapped token's tooltip: ${JSON.stringify(tokenTip)}`);
      // the closing section, with what changed in the output
      const closing = await page.textContent('#what-changed');
      check(/The output Z changed for/.test(closing), `${name}: no sentence about the output in the closing section`);
    }

    // a long input: the T × T steps are heatmaps, their changed cells tinted
    await open('long.html');
    for (const id of ['scores', 'weights']) {
      const box = page.locator(`.heatmap[data-step="${id}"]`);
      await box.evaluate((b) => b.scrollIntoView({ block: 'start' }));
      const count = Number(await box.getAttribute('data-changed'));
      const want = Object.keys(longExpected[id]).length;
      check(count === want, `long: ${id} tints ${count} cells, expected ${want}`);
      const size = Number(await box.getAttribute('data-drawn'));
      const tint = (r, c) => box.evaluate((b, [r, c]) => Array.from(
        b.querySelector('canvas.changes').getContext('2d').getImageData(c, r, 1, 1).data), [r, c]);
      const [changedCell] = Object.keys(longExpected[id]);
      const [r, c] = changedCell.split(',').map(Number);
      // orange and see-through (a canvas gives back colours rounded through their alpha)
      const [red, green, blue, alpha] = await tint(r, c);
      check(alpha === 90 && Math.abs(red - 217) <= 2 && Math.abs(green - 95) <= 2 && blue <= 4,
            `long: ${id}[${r},${c}] is tinted ${[red, green, blue, alpha]}, expected orange (217, 95, 2) at alpha 90`);
      const unchanged = id === 'scores' ? [0, 0] : null;  // scores: row and column w3 only
      if (unchanged) {
        check((await tint(...unchanged))[3] === 0, `long: ${id}[0,0] is tinted but did not change`);
      }
      const canvas = await box.locator('canvas').first().boundingBox();
      await page.mouse.move(canvas.x + (c + 0.5) * size, canvas.y + (r + 0.5) * size);
      const tip = await page.textContent('#tip');
      const was = `was ${fixed(longExpected[id][changedCell])} in the run as given`;
      check(tip.includes(was), `long: hovering ${id}[${r},${c}] shows ${JSON.stringify(tip)}, expected ${JSON.stringify(was)}`);
    }
  } finally {
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  if (failures.length) { console.log(`${failures.length} check(s) failed`); process.exit(1); }
  console.log('ok: the what-if and diff pages mark exactly the cells that differ');
})().catch((e) => { console.log('FAIL: ' + e.stack); process.exit(1); });
