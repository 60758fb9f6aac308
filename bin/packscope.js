#!/usr/bin/env node
'use strict';
// The packscope command: the bundled CLI built by `npm run build`.
const path = require('node:path');
const fs = require('node:fs');
const bundle = path.join(__dirname, '..', 'dist', 'cli.js');
if (!fs.existsSync(bundle)) {
  process.stderr.write('packscope: dist/cli.js is missing; run `npm run build` in ' + path.dirname(__dirname) + '\n');
  process.exit(1);
}
require(bundle);
