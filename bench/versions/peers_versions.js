// peers_versions.js DIR — the same work as bench_versions.c through node's
// semver package (found through NODE_PATH). Same output format.
const fs = require('fs');
const semver = require('semver');
const d = process.argv[2];
const lines = (p) => fs.readFileSync(p, 'utf8').split('\n').filter((l) => l.trim());
const vs = lines(`${d}/npm.txt`);
const rs = lines(`${d}/ranges-npm.txt`);
const t0 = process.hrtime.bigint();
const parsed = vs.map((v) => new semver.SemVer(v));
parsed.sort((a, b) => a.compare(b));
let kept = 0;
for (const r of rs) {
  const range = new semver.Range(r);
  for (const v of vs) if (range.test(v)) kept++;
}
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
console.log(`npm semver ${ms.toFixed(1)} ${kept}`);
