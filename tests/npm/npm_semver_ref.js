// npm_semver_ref.js — the reference side of the npm differential test:
// answers every case line from stdin with node's semver package, in one
// process. Usage: node npm_semver_ref.js <dir containing semver/> < cases
'use strict'
const path = require('path')
const semver = require(path.join(process.argv[2], 'semver'))

const optsOf = (o) => ({ loose: !!(o & 1), includePrerelease: !!(o & 2) })
const guard = (f) => {
  try {
    return f()
  } catch (e) {
    return 'THROW'
  }
}

const run = (c) => {
  switch (c[0]) {
    case 'valid': return semver.valid(c[1], optsOf(c[2]))
    case 'clean': return semver.clean(c[1], optsOf(c[2]))
    case 'compare': return guard(() => semver.compare(c[1], c[2], optsOf(c[3])))
    case 'compare_build': return guard(() => semver.compareBuild(c[1], c[2], optsOf(c[3])))
    case 'satisfies': return guard(() => semver.satisfies(c[1], c[2], optsOf(c[3])))
    case 'valid_range': return semver.validRange(c[1], optsOf(c[2]))
    case 'max': return guard(() => semver.maxSatisfying(c[1], c[2], optsOf(c[3])))
    case 'min': return guard(() => semver.minSatisfying(c[1], c[2], optsOf(c[3])))
    case 'version': return semver.SEMVER_SPEC_VERSION && require(path.join(process.argv[2], 'semver', 'package.json')).version
  }
  return 'UNKNOWN-OP'
}

const input = require('fs').readFileSync(0, 'utf8')
const out = []
for (const line of input.split('\n')) {
  if (line === '') continue
  out.push(JSON.stringify(run(JSON.parse(line))))
}
process.stdout.write(out.join('\n') + (out.length ? '\n' : ''))
