// Checks the --html report at scale and for everyone, in headless Chromium driven by
// puppeteer-core (with axe-core, both installed into the build directory by
// build-aux/ensure-puppeteer). Used by tests/cli/t_html.sh.
//
//   node html-check.mjs NPM_DIR CHROMIUM FILE.html:CHECK[,CHECK...] ...
//
// CHECKs, on each page (which must load with no console error):
//   pixels  at several zoom levels and scroll positions, each device lane's share of pixels
//           drawn busy (any pixel but the lane's idle colour) is the device's busy share in
//           view (computed here from the page's op times) within one percentage point; at the
//           fitted view that share is the run's own busy / makespan. With streams an op is busy
//           for its compute alone (its span less its inner time, at an even rate over it) and
//           the rest of its span is hatched: the hatched share is that rest within one point
//   perf    zoom and pan redraws (the frame's drawing, rasterized): prints the median, p90 and
//           worst ms; fails when the median exceeds LIMIT ms (env PPSIM_FRAME_MS, default 40:
//           generous for a busy 2-core machine; the goal is 16)
//   input   the wheel scrolls the page, Ctrl+wheel zooms, W/S zoom and A/D pan, a pinch zooms
//           and a one-finger drag pans (touch), the axis and bubble strip stay on screen
//   keys    every op is reachable with the keyboard (Home, arrows) and each one's details
//           reach the live region
//   a11y    axe-core finds no serious or critical violation; op labels meet 4.5:1 contrast on
//           their fills; no colour has two meanings in the legend
//   memory=RUN.json  (a run with activation offload; RUN.json its --format=json report) each
//           device's memory lane peaks at the report's activation_bytes on the GPU and its
//           host_bytes in host memory, and at the fitted view its tallest GPU column and host
//           band are drawn that high; the legend names both colours; hovering the lane and
//           selecting an op (the live region) tell the amounts on the GPU and in host memory
//   streams=K+K...  (a run with communication streams) its streams table has a pair of
//           columns (exposed K, K stream) for exactly these kinds, in this order, each with some
//           time on some device, and the step's sum names the same kinds
// Prints "ok - ..." or "not ok - ..." per check; exits 1 on a failure.
import {readFileSync} from "node:fs";
import {createRequire} from "node:module";
import {join, resolve} from "node:path";
import {pathToFileURL} from "node:url";

const [npmDir, chromium, ...pages] = process.argv.slice(2);
const require = createRequire(join(resolve(npmDir), "node_modules", "x.js"));
const puppeteer = require("puppeteer-core");
const axePath = require.resolve("axe-core/axe.min.js");
const LIMIT = Number(process.env.PPSIM_FRAME_MS || 40);
// (PPSIM_HTML_TIMEOUT seconds for a benchmark of a large page: tests/tools/html-bench.sh)
const WAIT = Number(process.env.PPSIM_HTML_TIMEOUT || 150);

let failures = 0;
function check(ok, what) {
	console.log(`${ok ? "ok" : "not ok"} - ${what}`);
	if (!ok) failures++;
}
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
const frame = (page) => page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));

const browser = await puppeteer.launch({
	executablePath: chromium, headless: true, protocolTimeout: Math.max(120, WAIT) * 1000,
	args: ["--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-color-profile=srgb",
		"--font-render-hinting=none", "--no-first-run", "--disable-extensions"],
});
const timer = setTimeout(() => { console.log(`not ok - the checks did not end within ${WAIT} s`); process.exit(1); }, WAIT * 1000);

// each visible lane: [run, device, drawn busy share, true busy share in view, drawn share of
// exposed communication (hatched), true share of it in view]
async function laneShares(page) {
	return page.evaluate(() => {
		const V = window.ppsimView, g = document.getElementById("timeline").getContext("2d");
		const rgb = (c) => parseInt(c.slice(1), 16);
		const idle = rgb(V.idle), inner = (V.inner || []).map(rgb), t0 = V.view.t0, t1 = V.view.t1;
		return V.lanes().map((L) => {
			const d = g.getImageData(L.x0, L.y0, L.x1 - L.x0, L.y1 - L.y0).data;
			let busy = 0, hatched = 0;
			for (let i = 0; i < d.length; i += 4) {
				const c = d[i] << 16 | d[i + 1] << 8 | d[i + 2];
				if (inner.includes(c)) hatched++;
				else if (c !== idle) busy++;
			}
			// the device's busy time in view, from the op times (a pair counts once); with
			// streams an op computes its span less its inner time (r.IN), at an even rate
			const r = window.PPSIM.runs[L.run];
			let sum = 0, cover = 0;
			for (let i = r.devStart[L.device]; i < r.devStart[L.device + 1]; i++) {
				if (r.OV[i] === 2) continue;
				const pair = r.OV[i] === 1 && r.OV[i + 1] === 2, e = pair ? Math.max(r.E[i], r.E[i + 1]) : r.E[i];
				const span = e - r.S[i], inn = r.IN ? (pair ? r.IN[i] + r.IN[i + 1] : r.IN[i]) : 0;
				const seen = Math.max(0, Math.min(e, t1) - Math.max(r.S[i], t0));
				sum += span > 0 ? seen * Math.max(0, span - inn) / span : 0;
				cover += seen;
			}
			const px = d.length / 4;
			return [L.run, L.device, busy / px, sum / (t1 - t0), hatched / px, (cover - sum) / (t1 - t0)];
		});
	});
}

async function pixels(page, name) {
	const info = await page.evaluate(() => {
		const r = window.PPSIM.runs[0];
		return {p: r.p, span: window.ppsimView.view.t1 - window.ppsimView.view.t0, t0: window.ppsimView.view.t0,
			origin: r.origin / r.tick, makespan: r.makespan, busy: r.devices.map((v) => v.busy), streams: Boolean(r.streams), inner: Boolean(r.IN),
			height: document.documentElement.scrollHeight};
	});
	let worst = 0, where = "", lanes = 0, levels = 0, fitted = 0, hatch = 0, hatchWhere = "", hatched = 0, exposed = 0;
	// zoom factors, each at a few centres; the deepest shows a handful of ops
	const zooms = [1, 4, 30, 250, 2500];
	const scrolls = info.height > 1600 ? [0.5, 1] : [0];
	for (const z of zooms) {
		const centres = z === 1 ? [0.5] : [0.21, 0.68];
		for (const c of centres) {
			const span = info.span / z, mid = info.t0 + c * info.span;
			await page.evaluate((a, b) => window.ppsimView.setWindow(a, b), mid - span / 2, mid + span / 2);
			for (const s of scrolls) {
				await page.evaluate((s) => window.scrollTo(0, s * (document.documentElement.scrollHeight - window.innerHeight)), s);
				await frame(page);
				await page.evaluate(() => window.ppsimView.draw());
				levels++;
				for (const [run, d, drawn, want, drawnIn, wantIn] of await laneShares(page)) {
					lanes++;
					const err = Math.abs(drawn - want), errIn = Math.abs(drawnIn - wantIn);
					if (err > worst) { worst = err; where = `zoom ${z}x at ${c}, scroll ${s}: GPU ${d} drawn ${(100 * drawn).toFixed(2)}%, busy ${(100 * want).toFixed(2)}%`; }
					if (errIn > hatch) { hatch = errIn; hatchWhere = `zoom ${z}x at ${c}, scroll ${s}: GPU ${d} hatched ${(100 * drawnIn).toFixed(2)}%, exposed inside ops ${(100 * wantIn).toFixed(2)}%`; }
					if (drawnIn > 0) hatched++;
					if (wantIn > 0.005) exposed++;
					if (z === 1 && run === 0) fitted++;
					if (z === 1 && run === 0) {
						// the fitted view holds the whole run: the busy time in it is the run's
						// own, compute alone (with streams an op's exposed communication is not)
						const mine = want * span, own = info.busy[d];
						if (Math.abs(mine - own) > 1e-6 * (1 + own)) { worst = Math.max(worst, 1); where = `fitted: GPU ${d}'s busy time in view ${mine} is not the run's ${own}`; }
					}
				}
			}
		}
	}
	await page.evaluate(() => { window.scrollTo(0, 0); window.ppsimView.fit(); });
	check(lanes > 0 && fitted > 0 && worst <= 0.01, `${name}: each lane drawn busy as the device is busy in view, within 1 point: worst ${(100 * worst).toFixed(3)} points over ${lanes} lanes in ${levels} views${where ? " (" + where + ")" : ""}`);
	if (info.inner)
		check(hatch <= 0.01 && (hatched > 0 || exposed === 0), `${name}: the exposed communication inside ops is hatched as much as it takes in view, within 1 point: worst ${(100 * hatch).toFixed(3)} points, hatched in ${hatched} lanes (${exposed} with some)${hatchWhere ? " (" + hatchWhere + ")" : ""}`);
}

async function perf(page, name) {
	const t = await page.evaluate(async (rounds) => {
		const V = window.ppsimView, g = document.getElementById("timeline").getContext("2d");
		const zoom = [], pan = [];
		const step = (into, f) => { const a = performance.now(); f(); g.getImageData(0, 0, 1, 1); into.push(performance.now() - a); };
		const x = 150 + (document.getElementById("timeline").clientWidth - 166) * 0.37;
		for (let k = 0; k < rounds; k++) {
			for (const s of [0, 0.6]) {
				window.scrollTo(0, s * (document.documentElement.scrollHeight - window.innerHeight));
				await new Promise((ok) => requestAnimationFrame(ok));
				V.fit();
				for (let i = 0; i < 25; i++) step(zoom, () => V.zoomAt(x, 0.75));
				for (let i = 0; i < 15; i++) step(pan, () => V.pan(0.1));
				for (let i = 0; i < 15; i++) step(pan, () => V.pan(-0.13));
				for (let i = 0; i < 25; i++) step(zoom, () => V.zoomAt(x, 1 / 0.75));
			}
		}
		window.scrollTo(0, 0);
		V.fit();
		const sum = (a) => {
			a.sort((x, y) => x - y);
			return {n: a.length, median: a[a.length >> 1], p90: a[Math.floor(a.length * 0.9)], max: a[a.length - 1]};
		};
		return {all: sum(zoom.concat(pan)), zoom: sum(zoom), pan: sum(pan)};
	}, Number(process.env.PPSIM_PERF_ROUNDS || 1));
	const f = (x) => `median ${x.median.toFixed(1)}, p90 ${x.p90.toFixed(1)}, worst ${x.max.toFixed(1)}`;
	console.log(`# ${name}: redraw ms over ${t.all.n} zoom and pan frames: ${f(t.all)}; zoom ${f(t.zoom)}; pan ${f(t.pan)}`);
	check(t.all.median <= LIMIT, `${name}: zoom and pan redraw in ${t.all.median.toFixed(1)} ms a frame (median; p90 ${t.all.p90.toFixed(1)}, worst ${t.all.max.toFixed(1)}; at most ${LIMIT})`);
}

async function input(page, name) {
	const span = () => page.evaluate(() => window.ppsimView.view.t1 - window.ppsimView.view.t0);
	const t0 = () => page.evaluate(() => window.ppsimView.view.t0);
	const box = await page.evaluate(() => { const r = document.getElementById("timeline").getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height}; });
	const tall = await page.evaluate(() => document.documentElement.scrollHeight > window.innerHeight + 200);
	await page.evaluate(() => window.ppsimView.fit());
	const s0 = await span();
	await page.mouse.move(box.x + 150 + (box.w - 166) * 0.4, Math.min(700, box.y + 60));
	// the wheel scrolls the page, not the view
	const y0 = await page.evaluate(() => window.scrollY);
	await page.mouse.wheel({deltaY: 300});
	// (the scroll may be animated)
	let y1 = y0;
	for (let i = 0; i < 40 && y1 === y0; i++) { await sleep(50); y1 = await page.evaluate(() => window.scrollY); }
	await sleep(100);
	y1 = await page.evaluate(() => window.scrollY);
	const room = await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight);
	check((room <= 0 || y1 > y0) && Math.abs(await span() - s0) < 1e-9 * s0, `${name}: the wheel ${room > 0 ? "scrolls the page (scrollY " + y0 + " to " + y1 + ")" : "(on a page with nothing to scroll)"} and leaves the view`);
	if (tall) {
		const vis = await page.evaluate(() => {
			const f = document.getElementById("foot").getBoundingClientRect(), c = document.getElementById("timeline").getBoundingClientRect();
			return {foot: [f.top, f.bottom], canvas: [c.top, c.bottom], h: window.innerHeight};
		});
		check(vis.foot[1] <= vis.h + 1 && vis.foot[0] >= 0 && Math.abs(vis.canvas[0]) <= 1 && Math.abs(vis.canvas[1] - vis.foot[0]) <= 1,
			`${name}: scrolled into the lanes, the timeline stays at the top, reaching down to the bubble strip and axis at the bottom of the window (canvas ${vis.canvas.map(Math.round)}, strip ${vis.foot.map(Math.round)}, window ${vis.h})`);
	}
	const at = await page.evaluate(() => { const r = document.getElementById("timeline").getBoundingClientRect(); return {x: r.left + 150 + (r.width - 166) * 0.4, y: Math.max(r.top, 0) + 40}; });
	await page.mouse.move(at.x, at.y);
	const y2 = await page.evaluate(() => window.scrollY);
	await page.keyboard.down("Control");
	await page.mouse.wheel({deltaY: -300});
	await page.keyboard.up("Control");
	await sleep(150);
	const s1 = await span(), y3 = await page.evaluate(() => window.scrollY);
	check(s1 < s0 * 0.9 && y3 === y2, `${name}: Ctrl+wheel zooms at the pointer (span ${s0.toPrecision(5)} to ${s1.toPrecision(5)}) and does not scroll`);
	await page.evaluate(() => document.activeElement && document.activeElement.blur && document.activeElement.blur());
	const k0 = await span();
	await page.keyboard.press("w");
	const k1 = await span();
	await page.keyboard.press("s"); await page.keyboard.press("s");
	const k2 = await span();
	const a0 = await t0();
	await page.keyboard.press("d");
	const a1 = await t0();
	await page.keyboard.press("a"); await page.keyboard.press("a");
	const a2 = await t0();
	check(k1 < k0 && k2 > k1 && a1 > a0 && a2 < a1, `${name}: W zooms in, S out, D pans later, A earlier`);
	// touch: a pinch zooms, one finger dragged sideways pans
	await page.evaluate(() => window.ppsimView.setWindow(window.ppsimView.view.t0, window.ppsimView.view.t0 + (window.ppsimView.view.t1 - window.ppsimView.view.t0) / 2));
	const cdp = await page.createCDPSession();
	const c = await page.evaluate(() => { const r = document.getElementById("timeline").getBoundingClientRect(); return {x: r.left + 150 + (r.width - 166) / 2, y: Math.max(r.top, 0) + 60}; });
	const touch = (type, pts) => cdp.send("Input.dispatchTouchEvent", {type, touchPoints: pts.map(([x, y], id) => ({x, y, id}))});
	const p0 = await span();
	await touch("touchStart", [[c.x - 40, c.y], [c.x + 40, c.y]]);
	for (let i = 1; i <= 6; i++) await touch("touchMove", [[c.x - 40 - 15 * i, c.y], [c.x + 40 + 15 * i, c.y]]);
	await touch("touchEnd", []);
	await sleep(100);
	const p1 = await span();
	const d0 = await t0();
	await touch("touchStart", [[c.x, c.y]]);
	for (let i = 1; i <= 6; i++) await touch("touchMove", [[c.x - 20 * i, c.y]]);
	await touch("touchEnd", []);
	await sleep(100);
	const d1 = await t0();
	check(p1 < p0 * 0.7 && d1 > d0, `${name}: touch: a pinch zooms in (span ${p0.toPrecision(5)} to ${p1.toPrecision(5)}), a drag to the left pans later (${d0.toPrecision(6)} to ${d1.toPrecision(6)})`);
	await cdp.detach();
	await page.evaluate(() => { window.scrollTo(0, 0); window.ppsimView.fit(); });
}

async function keys(page, name) {
	const r = await page.evaluate(() => ({p: window.PPSIM.runs.length, nops: window.PPSIM.runs.map((r) => r.nops), devStart: window.PPSIM.runs.map((r) => Array.from(r.devStart))}));
	await page.focus("#timeline");
	const seen = new Set();
	let bad = "";
	const live = await page.evaluate(() => { const e = document.getElementById("details"); return e.getAttribute("aria-live") + "/" + e.getAttribute("role"); });
	await page.keyboard.press("ArrowRight");
	for (let k = 0; k < r.p && !bad; k++) {
		for (let d = 0; d + 1 < r.devStart[k].length && !bad; d++) {
			const n = r.devStart[k][d + 1] - r.devStart[k][d];
			if (n === 0) continue;
			await page.keyboard.press("Home");
			for (let j = 0; j < n; j++) {
				const s = await page.evaluate(() => ({sel: window.ppsimView.selected(), text: document.getElementById("details").textContent, focus: document.activeElement.id}));
				if (!s.sel) { bad = "nothing selected"; break; }
				seen.add(s.sel.run + ":" + s.sel.op);
				const want = await page.evaluate((k, i) => window.ppsimView.hit ? window.PPSIM.runs[k].MB[i] : -1, s.sel.run, s.sel.op);
				if (!new RegExp(`micro-batch ${want}, stage \\d+, chunk \\d+, GPU \\d+; start [^;]+, end `).test(s.text) || s.focus !== "timeline") {
					bad = `op ${s.sel.op}: the live region says "${s.text.slice(0, 120)}" (focus on ${s.focus})`;
					break;
				}
				if (j + 1 < n) await page.keyboard.press("ArrowRight");
			}
			await page.keyboard.press("ArrowDown");
		}
	}
	const total = r.nops.reduce((a, b) => a + b, 0);
	check(!bad && seen.size === total && live === "polite/status", `${name}: the keyboard reaches all ${total} ops (reached ${seen.size}) and each one's details reach the live region (${live})${bad ? ": " + bad : ""}`);
	await page.keyboard.press("Escape");
}

async function a11y(page, name) {
	await page.addScriptTag({path: axePath});
	const res = await page.evaluate(async () => {
		const r = await window.axe.run(document, {resultTypes: ["violations"]});
		return r.violations.map((v) => ({id: v.id, impact: v.impact, n: v.nodes.length, help: v.help}));
	});
	const grave = res.filter((v) => v.impact === "serious" || v.impact === "critical");
	check(grave.length === 0, `${name}: axe-core finds no serious or critical violation${res.length ? " (" + res.map((v) => `${v.id} ${v.impact} x${v.n}`).join(", ") + ")" : ""}${grave.length ? ": " + grave.map((v) => v.help).join("; ") : ""}`);
	const v = await page.evaluate(() => window.ppsimView && window.ppsimView.labelContrast ? {c: window.ppsimView.labelContrast(), legend: window.ppsimView.legend} : null);
	if (v) {
		const low = Math.min(...v.c);
		check(low >= 4.5, `${name}: op labels have at least 4.5:1 contrast on every fill (lowest ${low.toFixed(2)})`);
		const by = {};
		v.legend.forEach((e) => { const c = e.colour.toLowerCase(); (by[c] = by[c] || []).push(e.text); });
		const twice = Object.entries(by).filter(([, t]) => t.length > 1);
		check(twice.length === 0, `${name}: each of the legend's ${v.legend.length} colours has one meaning${twice.length ? ": " + twice.map(([c, t]) => c + " is " + t.join(" and ")).join("; ") : ""}`);
	}
}

async function memory(page, name, json) {
	const want = JSON.parse(readFileSync(json, "utf8")).devices;
	await page.evaluate(() => { window.scrollTo(0, 0); window.ppsimView.fit(); window.ppsimView.draw(); });
	const got = await page.evaluate(() => {
		const V = window.ppsimView, g = document.getElementById("timeline").getContext("2d");
		const hex = (c) => [parseInt(c.slice(1, 3), 16), parseInt(c.slice(3, 5), 16), parseInt(c.slice(5, 7), 16)];
		return V.memory().map((L) => {
			const d = g.getImageData(L.x0, L.y0, L.x1 - L.x0, L.y1 - L.y0).data, w = L.x1 - L.x0, h = L.y1 - L.y0;
			const G = hex(L.colours.gpu), H = hex(L.colours.host);
			const is = (x, y, c) => { const i = 4 * (y * w + x); return d[i] === c[0] && d[i + 1] === c[1] && d[i + 2] === c[2]; };
			// per column, the GPU's run up from the bottom and the host's band (its pixels)
			let gpuTop = 0, hostTop = 0;
			for (let x = 0; x < w; x++) {
				let gy = 0, hy = 0;
				while (gy < h && is(x, h - 1 - gy, G)) gy++;
				for (let y = 0; y < h; y++) if (is(x, y, H)) hy++;
				gpuTop = Math.max(gpuTop, gy); hostTop = Math.max(hostTop, hy);
			}
			const mid = {x: (L.x0 + L.x1) / 2, y: (L.y0 + L.y1) / 2};
			return {device: L.device, gpu: L.gpu * L.bytes, host: L.host * L.bytes,
				gpuPx: gpuTop, hostPx: hostTop, wantGpuPx: Math.round(L.mh * L.gpu / L.scale), wantHostPx: Math.round(L.mh * L.host / L.scale),
				tip: V.hit(mid.x, mid.y)};
		});
	});
	let bad = "";
	if (got.length !== want.length) bad = `${got.length} memory lanes in view for ${want.length} devices`;
	for (const m of got) {
		const w = want[m.device];
		if (bad) break;
		if (m.gpu !== w.activation_bytes || m.host !== w.host_bytes)
			bad = `GPU ${m.device}: peaks ${m.gpu} on the GPU and ${m.host} in host memory, the report's ${w.activation_bytes} and ${w.host_bytes}`;
		else if (m.gpuPx !== m.wantGpuPx || m.hostPx !== m.wantHostPx)
			bad = `GPU ${m.device}: drawn ${m.gpuPx} and ${m.hostPx} pixels high, not ${m.wantGpuPx} and ${m.wantHostPx}`;
		else if (!/activations on the GPU [\d.]+ GB .*offloaded to host memory [\d.]+ GB/.test(m.tip || ""))
			bad = `GPU ${m.device}: hovering its memory lane shows "${m.tip}"`;
	}
	const hosts = got.filter((m) => m.host > 0).length;
	check(!bad && hosts > 0, `${name}: each memory lane peaks at the device's activation_bytes on the GPU and its host_bytes in host memory (${hosts} devices offload), drawn that high, and its tooltip tells both${bad ? ": " + bad : ""}`);
	const rest = await page.evaluate(() => {
		const V = window.ppsimView;
		V.select(0, 0);
		const text = document.getElementById("details").textContent;
		return {text: text, legend: V.legend.map((e) => e.text)};
	});
	check(/as it starts: activations on the GPU [\d.]+ GB .*offloaded to host memory [\d.]+ GB/.test(rest.text) &&
		rest.legend.some((t) => /host memory/.test(t)) && rest.legend.some((t) => /on the GPU/.test(t)),
		`${name}: the live region tells a selected op's activations on the GPU and in host memory, and the legend names both ("${rest.text.slice(-140)}")`);
	await page.keyboard.press("Escape");
}

async function streams(page, name, want) {
	const got = await page.evaluate(() => {
		const t = document.querySelector("table.streams");
		if (!t) return null;
		const head = [...t.rows[0].cells].map((c) => c.textContent);
		const kinds = head.filter((h) => h.startsWith("exposed ")).map((h) => h.slice(8));
		const used = kinds.map((k) => {
			const cols = [head.indexOf("exposed " + k), head.indexOf(k + " stream")];
			return [...t.rows].slice(1).some((r) => cols.some((c) => Number(r.cells[c].textContent) > 0));
		});
		const sum = t.nextElementSibling ? t.nextElementSibling.textContent : "";
		return {kinds: kinds, used: used, sum: [...sum.matchAll(/exposed (\w+)/g)].map((m) => m[1]).filter((k) => k !== "p2p")};
	});
	const w = want.split("+");
	check(got !== null && got.kinds.join() === w.join() && got.used.every(Boolean) && got.sum.join() === w.join(),
		`${name}: the streams table and the step's sum name the kinds with time, ${w.join(", ")}${got ? ` (table: ${got.kinds.join(", ")}; with time: ${got.used}; sum: ${got.sum.join(", ")})` : ": no streams table"}`);
}

try {
	for (const arg of pages) {
		const at = arg.lastIndexOf(":"), file = arg.slice(0, at), checks = arg.slice(at + 1).split(",");
		const name = file.replace(/.*\//, "");
		const page = await browser.newPage();
		await page.setViewport({width: 1100, height: 800, deviceScaleFactor: Number(process.env.PPSIM_DPR || 1)});
		const errors = [];
		page.on("pageerror", (e) => errors.push(e.message));
		page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") errors.push(m.text()); });
		page.on("request", (q) => { if (!q.url().startsWith("file:") && !q.url().startsWith("data:")) errors.push("a request for " + q.url()); });
		const began = Date.now();
		await page.goto(pathToFileURL(resolve(file)).href, {timeout: Math.max(30, WAIT - 30) * 1000});
		await page.waitForSelector("body[data-ready='1']", {timeout: Math.max(90, WAIT - 30) * 1000});
		console.log(`# ${name}: loaded and drawn in ${Date.now() - began} ms`);
		for (const c of checks) {
			if (c === "pixels") await pixels(page, name);
			else if (c === "perf") await perf(page, name);
			else if (c === "input") await input(page, name);
			else if (c === "keys") await keys(page, name);
			else if (c === "a11y") await a11y(page, name);
			else if (c.startsWith("memory=")) await memory(page, name, c.slice(7));
			else if (c.startsWith("streams=")) await streams(page, name, c.slice(8));
			else check(false, `unknown check ${c}`);
		}
		check(errors.length === 0, `${name}: no console error, exception or request${errors.length ? ": " + errors.slice(0, 5).join("; ") : ""}`);
		await page.close();
	}
} catch (e) {
	check(false, `the browser checks ran: ${e.stack || e}`);
}
clearTimeout(timer);
await browser.close();
process.exit(failures ? 1 : 0);
