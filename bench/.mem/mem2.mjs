const mods = process.argv.slice(2);
const r0 = process.memoryUsage().rss;
for (const m of mods) { const a = process.memoryUsage().rss; await import(m); console.log(m.padEnd(20), ((process.memoryUsage().rss - a) / 1048576).toFixed(1)); }
console.log('total', ((process.memoryUsage().rss - r0) / 1048576).toFixed(1), 'rss', (process.memoryUsage().rss/1048576).toFixed(0));
