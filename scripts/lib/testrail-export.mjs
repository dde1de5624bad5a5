// A synthetic TestRail XML export (the format of src/import/formats/testrail-xml.ts) for benchmarks:
// a suite of nested sections holding CASES cases of the "Test Case (Steps)" template (every tenth
// of "Test Case (Text)"), with preconditions (some with a TestRail table and an attachment link),
// steps, shared step sets inlined as TestRail exports them, custom fields of every form (dropdown
// with its leading space, multi-select, checkbox, text) and non-ASCII text. The same options give
// the same bytes. 50,000 cases come to about 60 MB.
//
//   import { writeTestrailExport } from './scripts/lib/testrail-export.mjs';
//   const { bytes, cases } = writeTestrailExport('/tmp/export.xml', { cases: 50000 });
//
// or from the command line: node scripts/lib/testrail-export.mjs OUT.xml [CASES]
import { closeSync, openSync, writeSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const WORDS = ('open the page enter a valid value check that the result shows the expected total in the list ' +
  'select an item from the menu confirm the dialog wait until the spinner disappears café naïve größe').split(' ');

/** A small deterministic generator (mulberry32), so that two runs write the same file. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function escapeXml(text) {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Writes the export to `path`; returns its size in bytes and the number of cases.
 * Options: cases (50,000), sectionsPerLevel (20: 20 top sections of 20 sections each), steps (4
 * per case), sharedSets (40 shared step sets of 3 steps; every fourth case uses one), seed.
 */
export function writeTestrailExport(path, options = {}) {
  const total = options.cases ?? 50000;
  const width = options.sectionsPerLevel ?? 20;
  const stepCount = options.steps ?? 4;
  const sharedSets = options.sharedSets ?? 40;
  const rnd = random(options.seed ?? 26);
  const words = (n) => Array.from({ length: n }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ');
  const sentence = (n) => {
    const s = words(n);
    return s.charAt(0).toUpperCase() + s.slice(1);
  };
  const shared = Array.from({ length: sharedSets }, (_, i) => ({
    id: i + 1,
    steps: Array.from({ length: 3 }, () => ({ content: sentence(7), expected: sentence(6) })),
  }));

  const fd = openSync(path, 'w');
  let bytes = 0;
  let buffer = '';
  const out = (text) => {
    buffer += text;
    if (buffer.length > 1 << 20) flush();
  };
  const flush = () => {
    bytes += writeSync(fd, buffer);
    buffer = '';
  };

  const leaves = width * width;
  const perLeaf = Math.ceil(total / leaves);
  let id = 0;
  const step = (index, s, sharedId) =>
    '<step>\n' +
    `<index>${index}</index>\n` +
    (sharedId ? `<shared_step_id>${sharedId}</shared_step_id>\n` : '') +
    `<content>${escapeXml(s.content)}</content>\n` +
    `<expected>${escapeXml(s.expected)}</expected>\n` +
    (s.info ? `<additional_info>${escapeXml(s.info)}</additional_info>\n` : '') +
    '</step>\n';
  const writeCase = () => {
    id++;
    const text = id % 10 === 0;
    const preconds = id % 7 === 0
      ? `${sentence(6)}\n\n|||:Field|:Value\n|| user | tester${id}\n|| locale | de-DE\n\n![](index.php?/attachments/get/${id})`
      : sentence(9);
    let body = '';
    if (text) {
      body += `<steps>${escapeXml(Array.from({ length: stepCount }, (_, i) => `${i + 1}. ${sentence(10)}`).join('\n'))}</steps>\n`;
      body += `<expected>${escapeXml(sentence(12))}</expected>\n`;
    } else {
      body += '<steps_separated>\n';
      let index = 1;
      if (id % 4 === 0) {
        const set = shared[(id / 4) % sharedSets];
        for (const s of set.steps) body += step(index++, s, set.id);
      }
      while (index <= stepCount) body += step(index++, { content: sentence(8), expected: sentence(6), info: index % 3 === 0 ? sentence(4) : '' });
      body += '</steps_separated>\n';
    }
    out(
      '<case>\n' +
        `<id>C${id}</id>\n` +
        `<title>${escapeXml(sentence(7))}</title>\n` +
        `<template>${text ? 'Test Case (Text)' : 'Test Case (Steps)'}</template>\n` +
        `<type>${['Functional', 'Regression', 'Smoke &amp; Sanity', 'Other'][id % 4]}</type>\n` +
        `<priority>${['Low', 'Medium', 'High', 'Critical'][id % 4]}</priority>\n` +
        `<estimate>${id % 3 === 0 ? `${(id % 50) + 1}m` : ''}</estimate>\n` +
        `<references>${id % 5 === 0 ? `SHOP-${id}` : ''}</references>\n` +
        '<custom>\n' +
        `<automation_type><id>${id % 3}</id><value> ${['None', 'Ranorex', 'Selenium'][id % 3]}</value></automation_type>\n` +
        `<browser><id>${id % 4}</id><value> ${['Chrome', 'Firefox', 'Safari', 'Edge'][id % 4]}</value></browser>\n` +
        `<platforms><item><id>1</id><value> Windows</value></item>${id % 2 ? '<item><id>2</id><value> macOS</value></item>' : ''}</platforms>\n` +
        `<is_smoke>${id % 11 === 0 ? 'true' : 'false'}</is_smoke>\n` +
        `<preconds>${escapeXml(preconds)}</preconds>\n` +
        body +
        '</custom>\n' +
        '</case>\n',
    );
  };

  out('<?xml version="1.0" encoding="UTF-8"?>\n<suite>\n  <id>S1</id>\n  <name>Master</name>\n  <description>A synthetic export</description>\n  <sections>\n');
  for (let top = 0; top < width && id < total; top++) {
    out(`  <section>\n  <name>Area ${top + 1} – ${escapeXml(words(2))}</name>\n  <description></description>\n  <sections>\n`);
    for (let sub = 0; sub < width && id < total; sub++) {
      out(`  <section>\n  <name>Feature ${top + 1}.${sub + 1}</name>\n  <description>${escapeXml(sentence(8))}</description>\n  <cases>\n`);
      for (let n = 0; n < perLeaf && id < total; n++) writeCase();
      out('  </cases>\n  </section>\n');
    }
    out('  </sections>\n  </section>\n');
  }
  out('  </sections>\n</suite>\n');
  flush();
  closeSync(fd);
  return { bytes, cases: id };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [path, cases] = process.argv.slice(2);
  if (!path) {
    console.error('usage: node scripts/lib/testrail-export.mjs OUT.xml [CASES]');
    process.exit(2);
  }
  const r = writeTestrailExport(path, { cases: cases ? Number(cases) : undefined });
  console.log(`${path}: ${r.cases} cases, ${(r.bytes / 1e6).toFixed(1)} MB`);
}
