// Bundles the extension (dist/extension.js) and the unit tests (out/test/unit).
import * as esbuild from 'esbuild';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const args = new Set(process.argv.slice(2));
const production = args.has('--production');

if (args.has('--tests')) {
  const dir = 'test/unit';
  const entryPoints = readdirSync(dir)
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => join(dir, f));
  await esbuild.build({
    entryPoints,
    outdir: 'out/test/unit',
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    // The pure modules under test must not reach for the editor API.
    external: [],
    logLevel: 'warning',
  });
} else {
  const options = {
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    minify: production,
    sourcemap: !production,
    logLevel: 'warning',
  };
  if (args.has('--watch')) {
    const ctx = await esbuild.context(options);
    await ctx.watch();
  } else {
    await esbuild.build(options);
  }
}
