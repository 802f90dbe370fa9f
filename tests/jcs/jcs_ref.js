// jcs_ref.js — the reference side of the differential tests, in ECMAScript
// itself: String(x) is Number::toString, JSON.stringify escapes strings as
// RFC 8785 asks, and `<` on strings compares UTF-16 code units.
//   node jcs_ref.js numbers    < hex bit patterns, one a line
//   node jcs_ref.js documents  < JSON documents, one a line
'use strict';
const fs = require('fs');

function canon(v) {
  if (v === null || typeof v !== 'object') {
    if (typeof v === 'number' && !Number.isFinite(v)) throw new Error('not finite');
    return JSON.stringify(v);
  }
  if (Array.isArray(v)) return '[' + v.map(canon).join(',') + ']';
  const keys = Object.keys(v).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return '{' + keys.map((k) => JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}';
}

const mode = process.argv[2];
const lines = fs.readFileSync(0, 'utf8').split('\n');
if (lines.length && lines[lines.length - 1] === '') lines.pop();
const out = [];
for (const line of lines) {
  if (mode === 'numbers') {
    const x = Buffer.from(line.padStart(16, '0'), 'hex').readDoubleBE(0);
    out.push(Number.isFinite(x) ? String(x) : 'ERROR');
  } else {
    let s;
    try { s = canon(JSON.parse(line)); } catch (e) { s = 'ERROR'; }
    out.push(s);
  }
}
process.stdout.write(out.join('\n') + (out.length ? '\n' : ''));
