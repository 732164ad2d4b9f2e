// Drives a headless Chromium through its DevTools protocol on a pipe (--remote-debugging-pipe:
// commands on fd 3, replies on fd 4, each a JSON message ended by a NUL byte), with nothing
// from npm. Used by tests/cli/t_html.sh to check the --html report in a real browser.
//
//   node browser.mjs CHROMIUM check FILE.html COUNT [zoom] [ops=OPS.csv] [requests=N] [ref=REF.png] [shot=OUT.png]
//   node browser.mjs CHROMIUM shot FILE.html OUT.png      (a screenshot of the page, for the docs)
//
// Loads FILE.html, fails on any console error or uncaught exception, checks that the page
// reports COUNT ops (a sweep's page: COUNT points, and hovers a cell of its heatmap); with
// OPS.csv (--dump-ops of the same run), that the page's op times (and slacks) are the run's; with
// requests=N, that a serving run's page draws N requests; with "zoom", that the first view merges ops into pixel columns and that
// zooming in with Ctrl+wheel draws single ops; hovers an op and checks its tooltip;
// compares a screenshot with REF.png (the share of pixels that differ by more than a small
// amount must stay under 1.5%), writing it to OUT.png. Prints one line per check; exits 1 on a
// failure.
import {spawn} from "node:child_process";
import {mkdtempSync, readFileSync, writeFileSync, rmSync, existsSync} from "node:fs";
import {tmpdir} from "node:os";
import {join, resolve} from "node:path";
import {pathToFileURL} from "node:url";

const [chromium, verb, file, opsArg, ...rest] = process.argv.slice(2);
const opts = Object.fromEntries(rest.map((a) => (a.includes("=") ? a.split(/=(.*)/s, 2) : [a, true])));
// The browser's profile, which is also its temporary folder (TMPDIR: Chromium makes its
// org.chromium.Chromium.* folders there and, killed, leaves them), removed at the end. The
// path stays short: Chromium's socket in it must fit a socket address (108 bytes).
const profile = mkdtempSync(join(tmpdir(), "chromium-"));
const browser = spawn(chromium, [
	"--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
	"--no-first-run", "--no-default-browser-check", "--disable-extensions",
	"--hide-scrollbars", "--force-color-profile=srgb", "--font-render-hinting=none",
	`--user-data-dir=${profile}`, "about:blank",
], {stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"], detached: true,
	env: {...process.env, TMPDIR: profile}});
// the browser and its helper processes, as one group
const killAll = () => { try { process.kill(-browser.pid, "SIGKILL"); } catch { browser.kill("SIGKILL"); } };
// the pipes break when the browser is killed: that is no error of the page's
browser.stdio[3].on("error", () => {});
browser.stdio[4].on("error", () => {});
// ends the browser and removes its folders; then exits with STATUS
async function finish(status) {
	killAll();
	await new Promise((ok) => (browser.exitCode !== null || browser.signalCode !== null ? ok() : browser.on("exit", ok)));
	try {
		rmSync(profile, {recursive: true, force: true, maxRetries: 10, retryDelay: 50});
	} catch (e) {
		console.log(`# could not remove ${profile}: ${e.message}`);
	}
	process.exit(status);
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => finish(1));
let stderr = "";
browser.stderr.on("data", (b) => { stderr += b; });

let nextId = 1, buffered = Buffer.alloc(0);
const waiting = new Map(), listeners = [];
browser.stdio[4].on("data", (chunk) => {
	buffered = Buffer.concat([buffered, chunk]);
	for (let end; (end = buffered.indexOf(0)) >= 0;) {
		const msg = JSON.parse(buffered.subarray(0, end).toString("utf8"));
		buffered = buffered.subarray(end + 1);
		if (msg.id && waiting.has(msg.id)) {
			const {ok, fail} = waiting.get(msg.id);
			waiting.delete(msg.id);
			msg.error ? fail(new Error(JSON.stringify(msg.error))) : ok(msg.result);
		} else {
			listeners.forEach((f) => f(msg));
		}
	}
});

function send(method, params = {}, sessionId) {
	const id = nextId++;
	const msg = {id, method, params};
	if (sessionId) msg.sessionId = sessionId;
	browser.stdio[3].write(JSON.stringify(msg) + "\0");
	return new Promise((ok, fail) => waiting.set(id, {ok, fail}));
}

function event(name, sessionId) {
	return new Promise((ok) => {
		const f = (m) => {
			if (m.method === name && m.sessionId === sessionId) {
				listeners.splice(listeners.indexOf(f), 1);
				ok(m.params);
			}
		};
		listeners.push(f);
	});
}

let failures = 0;
function check(ok, what) {
	console.log(`${ok ? "ok" : "not ok"} - ${what}`);
	if (!ok) failures++;
}

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
const timer = setTimeout(() => {
	console.log("not ok - the browser did not answer within 60 s");
	finish(1);
}, 60000);

try {
	const {targetInfos} = await send("Target.getTargets");
	const page = targetInfos.find((t) => t.type === "page");
	const {sessionId: s} = await send("Target.attachToTarget", {targetId: page.targetId, flatten: true});
	const errors = [];
	listeners.push((m) => {
		if (m.sessionId !== s) return;
		if (m.method === "Runtime.exceptionThrown")
			errors.push(m.params.exceptionDetails.exception?.description || m.params.exceptionDetails.text);
		if (m.method === "Runtime.consoleAPICalled" && (m.params.type === "error" || m.params.type === "warning"))
			errors.push(m.params.args.map((a) => a.value ?? a.description).join(" "));
		if (m.method === "Log.entryAdded" && m.params.entry.level === "error")
			errors.push(m.params.entry.text);
	});
	await send("Runtime.enable", {}, s);
	await send("Log.enable", {}, s);
	await send("Page.enable", {}, s);
	await send("Emulation.setDeviceMetricsOverride", {width: 1100, height: 800, deviceScaleFactor: 1, mobile: false}, s);
	const loaded = event("Page.loadEventFired", s);
	await send("Page.navigate", {url: pathToFileURL(resolve(file)).href}, s);
	await loaded;
	const evaluate = async (expr) => {
		const r = await send("Runtime.evaluate", {expression: expr, returnByValue: true, awaitPromise: true}, s);
		if (r.exceptionDetails) throw new Error(`${expr}: ${r.exceptionDetails.exception?.description}`);
		return r.result.value;
	};
	let ready = false;
	for (let i = 0; i < 100 && !ready; i++) {
		ready = await evaluate("document.body.getAttribute('data-ready') === '1'");
		if (!ready) await sleep(50);
	}
	if (verb === "shot") {
		// a picture of the page for the docs: the top of it, as wide as the viewport
		const h = Math.min(1400, await evaluate("document.documentElement.scrollHeight"));
		await send("Emulation.setDeviceMetricsOverride", {width: 1100, height: h, deviceScaleFactor: 1, mobile: false}, s);
		await sleep(300);
		const {data} = await send("Page.captureScreenshot", {format: "png", clip: {x: 0, y: 0, width: 1100, height: h, scale: 1}}, s);
		writeFileSync(opsArg, Buffer.from(data, "base64"));
		check(ready && errors.length === 0, `wrote ${opsArg}${errors.length ? "; errors: " + errors.join("; ") : ""}`);
		throw null;
	}
	check(ready, `the page finished drawing (in ${Math.round(await evaluate("window.ppsimView && window.ppsimView.readyMs"))} ms from the start of its script)`);
	const sweep = await evaluate("window.PPSIM.kind === 'sweep'");
	const what = sweep ? "points" : "ops";
	const shown = await evaluate(`document.getElementById('${sweep ? "points" : "opcount"}').textContent`);
	check(shown === opsArg, `the page reports ${opsArg} ${what} (shows ${shown})`);
	check(await evaluate(`window.ppsimView.${what}`) === Number(opsArg), `the viewer holds every one of the ${what}`);
	if (opts.ops) {
		// the page's op times and slacks are the run's (--dump-ops, in device order), every
		// message goes to its micro-batch's op one stage on, leaves after its producer ends and
		// arrives before its consumer starts
		const lines = readFileSync(opts.ops, "utf8").trim().split("\n");
		const slack = lines[0].split(",").indexOf("slack");
		const rows = lines.slice(1).map((l) => l.split(","));
		const bad = await evaluate(`(() => {
			const want = ${JSON.stringify(rows.map((r) => [Number(r[5]), Number(r[6]), Number(r[4]), slack >= 0 ? Number(r[slack]) : null]))};
			const r = window.PPSIM.runs[0], eps = 1e-9 * (1 + r.makespan);
			if (r.nops !== want.length) return "the page has " + r.nops + " ops, the run " + want.length;
			if ((want.length > 0 && want[0][3] !== null) !== Boolean(r.SL)) return "the page has " + (r.SL ? "" : "no ") + "slacks, the run " + (r.SL ? "none" : "has");
			for (let i = 0; i < r.nops; i++)
				if (Math.abs(r.S[i] - want[i][0]) > eps || Math.abs(r.E[i] - want[i][1]) > eps || r.MB[i] !== want[i][2] ||
				    (r.SL && Math.abs(r.SL[i] - want[i][3]) > eps))
					return "op " + i + ": " + [r.S[i], r.E[i], r.MB[i], r.SL ? r.SL[i] : ""] + " in the page, " + want[i] + " in the run";
			for (let k = 0; k < r.nmsgs; k++) {
				const f = r.MF[k], t = r.MT[k];
				if (f >= r.nops || t >= r.nops || r.MB[f] !== r.MB[t] || Math.abs(r.ST[t] - r.ST[f]) !== 1)
					return "message " + k + " goes from op " + f + " to op " + t + ", not to its micro-batch's op one stage on";
				if (r.MS[k] < r.E[f] - eps || r.ME[k] > r.S[t] + eps || r.ME[k] < r.MS[k])
					return "message " + k + " runs " + r.MS[k] + " to " + r.ME[k] + ", its producer ends " + r.E[f] + ", its consumer starts " + r.S[t];
			}
			return "";
		})()`);
		check(bad === "", `every op's start, end and micro-batch in the page are the run's, and every message goes one stage on within its micro-batch and lies between its producer and consumer${bad ? ": " + bad : ""}`);
	}
	if (opts.requests) {
		const n = await evaluate("window.PPSIM.runs[0].req ? window.PPSIM.runs[0].req.n : 0");
		check(n === Number(opts.requests), `the page draws the ${opts.requests} requests (${n})`);
	}
	if (sweep) {
		const cell = await evaluate("(() => { const c = document.querySelector('#heat td[data-k]'); if (!c) return null; const r = c.getBoundingClientRect(); return {x: r.left + r.width / 2, y: r.top + r.height / 2, n: document.querySelectorAll('#heat td[data-k]').length}; })()");
		check(cell !== null, `the heatmap has cells (${cell ? cell.n : 0})`);
		if (cell) {
			await send("Input.dispatchMouseEvent", {type: "mouseMoved", x: cell.x, y: cell.y}, s);
			await sleep(100);
			const tip = await evaluate("document.getElementById('tip').style.display === 'block' ? document.getElementById('tip').textContent : ''");
			check(/schedule: .*makespan: /.test(tip), `hovering a cell shows its point ("${tip.slice(0, 80)}...")`);
		}
	}

	// the canvas's top-left corner, to aim the mouse
	const box = sweep ? null : await evaluate("(() => { const r = document.getElementById('timeline').getBoundingClientRect(); return {x: r.left, y: r.top + window.scrollY, w: r.width}; })()");
	if (opts.zoom) {
		const first = await evaluate("({...window.ppsimView.stats})");
		check(first.aggregated > 0, `the whole run merges ops narrower than a pixel (${first.aggregated} merged, ${first.drawn} single)`);
		const x = box.x + 160, y = box.y + 30;
		for (let i = 0; i < 40; i++) {
			await send("Input.dispatchMouseEvent", {type: "mouseWheel", x, y, deltaX: 0, deltaY: -400, modifiers: 2}, s);
			await sleep(5);
		}
		await sleep(100);
		const zoomed = await evaluate("({...window.ppsimView.stats, t0: window.ppsimView.view.t0, t1: window.ppsimView.view.t1})");
		check(zoomed.aggregated === 0 && zoomed.drawn > 0, `zoomed in by the wheel (${zoomed.t0.toPrecision(6)} to ${zoomed.t1.toPrecision(6)}), every op in view is drawn on its own (${zoomed.drawn} single, ${zoomed.aggregated} merged)`);
		await evaluate("window.ppsimView.fit()");
	}
	if (!sweep) {
	// hover the first op of the first device
	const at = await evaluate("window.ppsimView.locate(0, 0)");
	await send("Input.dispatchMouseEvent", {type: "mouseMoved", x: box.x + at.x, y: box.y + at.y}, s);
	let tip = "";
	for (let i = 0; i < 60 && !tip; i++) {
		await sleep(50);
		tip = await evaluate("(() => { const t = document.getElementById('tip'); return t.style.display === 'block' ? t.textContent : ''; })()");
	}
	if (!tip) tip = `no tooltip at ${at.x}, ${at.y}`;
	check(/micro-batch \d+, stage \d+/.test(tip) && /start .*end/.test(tip), `hovering an op shows its micro-batch, stage, start and end ("${tip.slice(0, 80)}...")`);
	await send("Input.dispatchMouseEvent", {type: "mouseMoved", x: 5, y: 5}, s);
	await sleep(50);
	}

	if (opts.ref || opts.shot) {
		const {data} = await send("Page.captureScreenshot", {format: "png", clip: {x: 0, y: 0, width: 1100, height: 800, scale: 1}}, s);
		if (opts.shot) writeFileSync(opts.shot, Buffer.from(data, "base64"));
		if (opts.ref && existsSync(opts.ref)) {
			const ref = readFileSync(opts.ref).toString("base64");
			const diff = await evaluate(`(async () => {
				const load = (src) => new Promise((ok, fail) => { const i = new Image(); i.onload = () => ok(i); i.onerror = fail; i.src = src; });
				const [a, b] = await Promise.all([load("data:image/png;base64,${data}"), load("data:image/png;base64,${ref}")]);
				if (a.width !== b.width || a.height !== b.height) return {size: [a.width, a.height, b.width, b.height]};
				const px = (img) => { const c = document.createElement("canvas"); c.width = img.width; c.height = img.height; const g = c.getContext("2d"); g.drawImage(img, 0, 0); return g.getImageData(0, 0, c.width, c.height).data; };
				const p = px(a), q = px(b);
				let off = 0;
				for (let i = 0; i < p.length; i += 4)
					if (Math.abs(p[i] - q[i]) + Math.abs(p[i + 1] - q[i + 1]) + Math.abs(p[i + 2] - q[i + 2]) > 48) off++;
				return {share: off / (p.length / 4)};
			})()`);
			check(diff.share !== undefined && diff.share < 0.015, diff.share !== undefined
				? `the screenshot matches ${opts.ref}: ${(100 * diff.share).toFixed(3)}% of pixels differ (at most 1.5%)`
				: `the screenshot is ${diff.size[0]}x${diff.size[1]}, ${opts.ref} ${diff.size[2]}x${diff.size[3]}`);
		} else if (opts.ref) {
			check(false, `no reference image ${opts.ref} (UPDATE_GOLDEN=1 writes it)`);
		}
	}
	check(errors.length === 0, `no console error or exception${errors.length ? ": " + errors.join("; ") : ""}`);
} catch (e) {
	if (e !== null) check(false, `the browser check ran: ${e.message}\n${stderr.slice(-2000)}`);
}
clearTimeout(timer);
await finish(failures ? 1 : 0);
