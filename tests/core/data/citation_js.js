// What citation-js makes of an export: node citation_js.js FORMAT < FILE
//   FORMAT: bibtex | ris | csl  (read as @biblatex/text, @ris/file, @csl/list+object)
// Prints {"items": [CSL-JSON items], "log": [[level, scope, message], ...]} to stdout,
// where the log holds citation-js's own warnings and errors (and "unmapped" notes
// about fields it did not carry over). Needs the packages installed by `make clients`
// (NODE_PATH pointing at .clients/node_modules).
const { Cite, logger } = require('@citation-js/core');
require('@citation-js/plugin-bibtex');
require('@citation-js/plugin-ris');
require('@citation-js/plugin-csl');
const fs = require('fs');

const forms = { bibtex: '@biblatex/text', ris: '@ris/file', csl: '@csl/list+object' };
const kind = process.argv[2];
if (!(kind in forms)) {
  process.stderr.write('usage: node citation_js.js bibtex|ris|csl < FILE\n');
  process.exit(2);
}
let input = fs.readFileSync(0, 'utf8');
if (kind === 'csl') input = JSON.parse(input);

const log = [];
for (const level of ['unmapped', 'info', 'warn', 'error']) {
  logger[level] = (scope, ...msg) => { log.push([level, scope, msg.map(String).join(' ')]); };
}
const cite = new Cite(input, { forceType: forms[kind] });
const items = cite.data.map(({ _graph, ...item }) => item);
process.stdout.write(JSON.stringify({ items, log }));
