import Module from 'node:module';
const { createLarder } = await import('./src/app.js');
const loaded = new Set();
for (const k of Object.keys(Module._cache)) { const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(k); if (m) loaded.add(m[1]); }
console.log([...loaded].sort().join(' '));
