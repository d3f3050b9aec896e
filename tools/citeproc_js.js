// Format CSL-JSON items with citeproc-js (the CSL processor of Zotero), for
// tools/evaluate_styles.py: node citeproc_js.js < {"style": XML, "locale": XML,
// "lang": "en-US", "items": [CSL-JSON]}
// Prints {"entries": [html of each bibliography entry, in the style's order]}.
// Needs `make clients` (citeproc comes with @citation-js/plugin-csl in .clients/).
const CSL = require('citeproc');
const fs = require('fs');

const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const byId = new Map(input.items.map((item) => [String(item.id), item]));
const sys = {
  retrieveLocale: () => input.locale,
  retrieveItem: (id) => byId.get(String(id)),
};
const engine = new CSL.Engine(sys, input.style, input.lang, true);
engine.updateItems(input.items.map((item) => String(item.id)));
const [, entries] = engine.makeBibliography();
process.stdout.write(JSON.stringify({ entries }));
