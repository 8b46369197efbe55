// What the tests that drive Debian's Chromium with playwright-core (from tests/oracles)
// share: the browser and a page whose script errors are collected, and numbers written as the
// page writes them.
'use strict';
const path = require('path');
const { chromium } = require(path.join(__dirname, '..', 'oracles', 'node_modules', 'playwright-core'));

// Chromium (headless, no sandbox, no network) and a 1280 × 900 page; `problems` collects the
// page's console errors and uncaught exceptions. Close `browser` when done.
async function openPage(executablePath) {
  const browser = await chromium.launch({
    executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(String(e)));
  return { browser, page, problems };
}

// A number to 4 decimals, as the page prints it: no "-0.0000".
const fixed = (v) => { const s = v.toFixed(4); return /^-0(\.0*)?$/.test(s) ? s.substring(1) : s; };

// Loads `file` into `page` and waits until its script finished; `check` is told of any error
// the page had so far.
async function loadPage(page, problems, check, file) {
  await page.goto('file://' + file);
  await page.waitForSelector('html[data-ready="ok"]', { timeout: 60000 });
  check(problems.length === 0, `errors on ${file}: ` + problems.join('; '));
}

module.exports = { openPage, loadPage, fixed };
