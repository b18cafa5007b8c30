#!/usr/bin/env node
// The built CLI. `npm run build` (tsc -b) produces dist/; run it once after a fresh install.
import '../dist/cli/main.js';
