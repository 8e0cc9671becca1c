#!/usr/bin/env node
// The command's entry point. It is a file of its own, present before the build, so installing
// the workspace links the bin without a warning; the program itself is the built dist/main.js.
try {
  await import('../dist/main.js');
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('dist/main.js')) throw err;
  process.stderr.write(
    'egress-proxies: the operator is not built yet; run `npm run build` in the clone first\n',
  );
  process.exitCode = 1;
}
