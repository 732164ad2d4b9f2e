// Reads Chrome traces with Chrome's own trace engine (the DevTools Performance panel's model,
// npm @paulirish/trace_engine) and checks what DevTools would show of each: every flow bound
// to a slice at both ends, and every slice inside the trace's bounds (the window DevTools
// opens on). Prints one line per trace, "ok FILE: ..." or "FAIL FILE: ...", and exits 1 when
// one fails.
// Usage: node tests/tools/trace-engine.mjs NPM_DIR TRACE.json|TRACE.json.gz...
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import {pathToFileURL} from 'node:url';

const [dir, ...files] = process.argv.slice(2);
const engine = path.resolve(dir, 'node_modules/@paulirish/trace_engine');
const Trace = await import(pathToFileURL(path.join(engine, 'models/trace/trace.js')).href);
const {polyfillDOMRect} = await import(pathToFileURL(path.join(engine, 'analyze-trace.mjs')).href);

polyfillDOMRect(); // the engine expects a browser's DOMRect
// and URL.parse (Node.js 20.18 and 22), which Debian 12's Node.js 18 lacks: the standard's
// definition, a URL or null
if (typeof URL.parse !== 'function') {
	URL.parse = (url, base) => {
		try {
			return new URL(url, base);
		} catch {
			return null;
		}
	};
}
let failed = false;

for (const file of files) {
	const bytes = fs.readFileSync(file);
	const gzip = bytes[0] === 0x1f && bytes[1] === 0x8b;
	const events = JSON.parse((gzip ? zlib.gunzipSync(bytes) : bytes).toString('utf8')).traceEvents;
	const model = Trace.TraceModel.Model.createWithAllHandlers();

	await model.parse(events);
	const data = model.parsedTrace().data;
	const ids = new Set(events.filter(e => e.ph === 's' || e.ph === 'f').map(e => e.id));
	// a bound flow is the list of slices its points bound to, in time order
	const bound = data.Flows.flows.filter(f => f.length >= 2).length;
	const {min, max} = data.Meta.traceBounds;
	const slices = events.filter(e => e.ph === 'X');
	const first = Math.min(...slices.map(e => e.ts));
	const last = Math.max(...slices.map(e => e.ts + e.dur));
	const why = [];

	if (bound !== ids.size)
		why.push(`${ids.size - bound} flows do not bind`);
	if (first < min || last > max)
		why.push(`slices from ${first} to ${last} us, outside the bounds`);
	console.log(`${why.length ? 'FAIL' : 'ok'} ${file}: ${bound}/${ids.size} flows bound, ` +
	            `bounds ${min}..${max} us, slices ${first}..${last} us` +
	            (why.length ? `: ${why.join('; ')}` : ''));
	failed ||= why.length > 0;
}
process.exit(failed ? 1 : 0);
