// The browser and Markdown half of the hostile-strings test (check_hostile.py writes the
// files and a manifest, then runs this once):
//   node browser_check.js MANIFEST.json CHROMIUM
// MANIFEST: {"pages": [html files], "markdown": [{"file": md, "texts": [strings it must show
// as text]}], "baseline_markdown": md of a plain run}.
// Every page is loaded in ONE headless Chromium (Debian's, driven by playwright-core from
// tests/oracles): its script must finish (data-ready="ok", no data-errors), no console error
// or page error, no request but the page itself, no script of an input run (window.__pwned
// stays unset; every hostile string that could run script sets it) and no element that the
// page does not make (img, iframe, object, embed, a, form, input, svg inside the body text).
// Every Markdown file is rendered by markdown-it with raw HTML and linkify on (bare addresses
// made links, as GitHub does), as a permissive viewer would: it must make no element a plain run does not make (no link, image
// or raw HTML from an input) and show each expected text.
'use strict';
const fs = require('fs');
const path = require('path');
const oracles = path.join(__dirname, '..', 'oracles', 'node_modules');
const { chromium } = require(path.join(oracles, 'playwright-core'));
const MarkdownIt = require(path.join(oracles, 'markdown-it'));

const manifest = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const executablePath = process.argv[3];
const failures = [];
const fail = (what) => failures.push(what);

function tagsOf(html) {
  const tags = new Set();
  for (const m of html.matchAll(/<([a-zA-Z][a-zA-Z0-9]*)/g)) tags.add(m[1].toLowerCase());
  return tags;
}
function textOf(html) {
  return html.replace(/<[^>]*>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
}

function checkMarkdown() {
  const md = new MarkdownIt({ html: true, linkify: true });
  const allowed = tagsOf(md.render(fs.readFileSync(manifest.baseline_markdown, 'utf8')));
  for (const item of manifest.markdown) {
    const html = md.render(fs.readFileSync(item.file, 'utf8'));
    for (const tag of tagsOf(html)) {
      if (!allowed.has(tag)) fail(`${item.file}: the Markdown makes a <${tag}> element`);
    }
    const text = textOf(html).replace(/\s+/g, ' ');
    for (const t of item.texts) {
      if (!text.includes(t)) fail(`${item.file}: the text ${JSON.stringify(t).slice(0, 80)} is not shown`);
    }
  }
}

async function checkPages() {
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const context = await browser.newContext();
    for (const file of manifest.pages) {
      const page = await context.newPage();
      const url = 'file://' + path.resolve(file);
      const problems = [];
      page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`); });
      page.on('pageerror', (e) => problems.push(`page error: ${e}`));
      page.on('request', (r) => { if (r.url() !== url) problems.push(`request: ${r.url().slice(0, 100)}`); });
      await page.goto(url, { waitUntil: 'load', timeout: 60000 });
      const state = await page.evaluate(() => ({
        ready: document.documentElement.getAttribute('data-ready'),
        errors: document.documentElement.getAttribute('data-errors'),
        pwned: window.__pwned === undefined ? null : String(window.__pwned),
        scripts: document.scripts.length,
        foreign: Array.from(document.body.querySelectorAll('img,iframe,object,embed,a,form,input,base,meta,link,svg,math,style,script'))
          // the page's own scripts: at the end of the body, and a compact heatmap's data (a
          // JSON block, never run) beside its canvas in a step's section
          .filter((e) => e.tagName !== 'SCRIPT' || !(e.parentElement === document.body ||
            (e.type === 'application/json' && e.classList.contains('heatmap-data') &&
             e.parentElement.matches('section.step') && e.previousElementSibling !== null &&
             e.previousElementSibling.matches('div.heatmap')) ||
            // the lines view's data, a JSON block after the view in its section
            (e.type === 'application/json' && e.id === 'lines-data' &&
             e.parentElement.matches('body > section#lines') &&
             e.previousElementSibling !== null &&
             e.previousElementSibling.matches('div#lines-view'))))
          // what the page's script draws in the lines view: its SVG of lines only, and a
          // checkbox per head in a label of the heads' row
          .filter((e) => !(e.tagName === 'svg' &&
            e.parentElement.matches('section#lines > div#lines-view > div.lines-board') &&
            Array.from(e.children).every((c) => c.tagName === 'line' && c.children.length === 0)))
          .filter((e) => !(e.tagName === 'INPUT' && e.type === 'checkbox' &&
            e.parentElement.matches('section#lines > div#lines-view > div.lines-heads > label')))
          // the page's own links to its parts, in the navigation and the summary at the top:
          // to an element of the page, text only, no attribute but href and title
          .filter((e) => !(e.tagName === 'A' &&
            e.parentElement.closest('body > nav#contents, body > section#result') !== null &&
            /^#[A-Za-z0-9_.-]+$/.test(e.getAttribute('href') || '') &&
            document.getElementById(e.getAttribute('href').substring(1)) !== null &&
            e.children.length === 0 &&
            Array.from(e.attributes).every((a) => a.name === 'href' || a.name === 'title')))
          .map((e) => e.tagName).slice(0, 5),
        heatmapData: document.querySelectorAll('script.heatmap-data').length,
        heatmaps: document.querySelectorAll('div.heatmap').length,
      }));
      const isReport = !path.basename(file).startsWith('worksheet') && !path.basename(file).startsWith('answer-key');
      if (isReport && state.ready !== 'ok') problems.push('the page script did not finish (no data-ready="ok")');
      if (state.errors) problems.push(`data-errors: ${state.errors}`);
      if (state.pwned !== null) problems.push(`an input ran script: window.__pwned = ${state.pwned}`);
      if (state.foreign.length > 0) problems.push(`elements from an input: ${state.foreign.join(', ')}`);
      if (state.heatmapData !== state.heatmaps) problems.push(`${state.heatmapData} heatmap data blocks for ${state.heatmaps} heatmaps`);
      for (const p of problems) fail(`${file}: ${p}`);
      await page.close();
    }
  } finally {
    await browser.close();
  }
}

(async () => {
  checkMarkdown();
  await checkPages();
  for (const f of failures) console.log('FAIL: ' + f);
  console.log(`browser: ${manifest.pages.length} pages, ${manifest.markdown.length} Markdown files, ${failures.length} failures`);
  process.exit(failures.length > 0 ? 1 : 0);
})().catch((e) => { console.log('FAIL: ' + e); process.exit(1); });
