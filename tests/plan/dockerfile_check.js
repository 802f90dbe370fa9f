#!/usr/bin/env node
// dockerfile_check.js DOCKERFILE — parse a Dockerfile with dockerfile-ast
// (the parser of the Docker language server; pinned in scripts/install-deps,
// installed in build/tools/dockerfile-ast) and print what it read as JSON:
// the parser directives, then every instruction in file order with its
// keyword, lines (1-based), flags (--network=none, --mount=...), arguments
// (continuation lines joined by the parser), ENV/LABEL properties, the FROM
// image's parts and an exec form's JSON strings. plan_proof.py checks the
// plan against the lock from this; nothing here knows the lock.
//
// DOCKERFILE_AST_HOME: the directory whose node_modules holds dockerfile-ast
// (default <repo>/build/tools/dockerfile-ast). Exit 77 when it is missing.
'use strict';
const fs = require('fs');
const path = require('path');

const repo = path.resolve(__dirname, '..', '..');
const home = process.env.DOCKERFILE_AST_HOME || path.join(repo, 'build', 'tools', 'dockerfile-ast');
let ast;
try {
  ast = require(path.join(home, 'node_modules', 'dockerfile-ast'));
} catch (e) {
  process.stderr.write('dockerfile-ast is not installed in ' + home + ' (scripts/install-deps)\n');
  process.exit(77);
}
if (process.argv.length !== 3) {
  process.stderr.write('usage: dockerfile_check.js DOCKERFILE\n');
  process.exit(2);
}
const text = fs.readFileSync(process.argv[2], 'utf8');
const df = ast.DockerfileParser.parse(text);

function flags(ins) {
  if (typeof ins.getFlags !== 'function') return [];
  return ins.getFlags().map((f) => ({
    name: f.getName(),
    value: f.getValue(),
    options: f.getOptions().map((o) => ({ name: o.getName(), value: o.getValue() })),
  }));
}

function describe(ins) {
  const r = ins.getRange();
  const out = {
    keyword: ins.getKeyword(),
    line: r.start.line + 1,
    endLine: r.end.line + 1,
    flags: flags(ins),
    args: ins.getArguments().map((a) => a.getValue()),
    content: ins.getArgumentsContent(),
  };
  if (typeof ins.getProperties === 'function') {
    out.properties = ins.getProperties().map((p) => ({
      name: p.getName(),
      value: p.getValue(),            // as the shell reads it: quotes removed
      raw: p.getUnescapedValue(),     // as written
    }));
  }
  if (typeof ins.getJSONStrings === 'function' && ins.getOpeningBracket()) {
    // the exec form: the JSON array as written
    try {
      out.json = JSON.parse(out.content);
    } catch (e) {
      out.json = null;
    }
  }
  if (out.keyword === 'FROM') {
    out.from = {
      image: ins.getImage(),
      name: ins.getImageName(),
      tag: ins.getImageTag(),
      digest: ins.getImageDigest(),
      registry: ins.getRegistry(),
      stage: ins.getBuildStage(),
    };
  }
  return out;
}

const result = {
  directives: df.getDirectives().map((d) => ({ name: d.getName(), value: d.getValue() })),
  comments: df.getComments().map((c) => ({ line: c.getRange().start.line + 1, text: c.getContent() })),
  instructions: df.getInstructions().map(describe),
};
process.stdout.write(JSON.stringify(result, null, 1) + '\n');
