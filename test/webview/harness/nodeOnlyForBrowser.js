// Stands in for Node builtins and node-only packages in the synthetic-run bundle only: the audit's
// summarize() runs in the page, and the audit's doors (index.ts) also lead to modules that read
// files, lock folders or load the runtime. summarize calls none of them; the few values such
// modules compute when loaded (a path joined, the host's byte order) get these harmless stand-ins.
'use strict';
const join = (...parts) => parts.filter(Boolean).join('/').replace(/\/+/g, '/');
const dirname = (p) => String(p).replace(/\/[^/]*$/, '') || '/';
const basename = (p) => String(p).replace(/^.*\//, '');
module.exports = {
  join,
  resolve: join,
  dirname,
  basename,
  relative: (_from, to) => String(to),
  extname: (p) => (/\.[^./]*$/.exec(String(p)) || [''])[0],
  isAbsolute: (p) => String(p).startsWith('/'),
  sep: '/',
  delimiter: ':',
  endianness: () => 'LE',
  availableParallelism: () => 1,
  cpus: () => [],
  totalmem: () => 0,
  freemem: () => 0,
  tmpdir: () => '/tmp',
  homedir: () => '/',
  platform: () => 'browser',
  EOL: '\n',
  constants: {},
  promisify: (f) => f,
  inspect: (v) => String(v),
};
