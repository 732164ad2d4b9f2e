/* The interactive viewer of ppsim's --html report. It reads window.PPSIM (written by
 * src/report/html.c) and draws every run on one canvas with a shared time axis: per device a
 * lane of ops, a thin lane of its outgoing transfers and a lane of its activation memory.
 * Wheel or +/- zooms at the pointer, a drag or the arrow keys pan, 0 or double-click fits.
 * What is narrower than a pixel is drawn as one column per pixel, in the colour of the kind that
 * covers most of it, so a million ops cost one pass per frame. window.ppsimView is the page's
 * interface for scripts and tests: setWindow(t0, t1), fit(), and the counts of the last frame. */
(function () {
	"use strict";
	var D = window.PPSIM, began = performance.now();
	var COLOR = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759"];
	var LIGHT = ["#9fb7d3", "#f8c795", "#acd0a7", "#f0abac"];
	var TITLE = 22, LANE = 18, WIRE = 6, MEM = 14, GAP = 5, LEFT = 150, RIGHT = 16, AXIS = 28;
	var BUBBLE = 26; /* the strip of the bubble over time below a run's devices */
	var ROW = LANE + WIRE + MEM + GAP;

	function el(id) { return document.getElementById(id); }

	function num(x) {
		if (!isFinite(x)) return String(x);
		var a = Math.abs(x);
		if (a !== 0 && (a >= 1e7 || a < 1e-3)) return x.toExponential(3);
		return String(Math.round(x * 1e4) / 1e4);
	}

	function niceStep(need) {
		var steps = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8];
		var base = Math.pow(10, Math.floor(Math.log10(need)));
		for (;;) {
			for (var i = 0; i < steps.length; i++)
				if (steps[i] * base >= need) return steps[i] * base;
			base *= 10;
		}
	}

	/* Expands a run's flat arrays: per op [kind | 4 overlapped-first, micro-batch, stage, gap
	 * after the previous op of its device, duration, activation change], per message
	 * [producer, consumer, delay after the producer's end, transfer time]; times in quanta,
	 * r.tick of them a time unit. */
	function decode(r) {
		var n = r.nops, o = r.ops, i, d;
		r.K = new Uint8Array(n); r.OV = new Uint8Array(n);
		r.MB = new Uint32Array(n); r.ST = new Uint32Array(n);
		r.S = new Float64Array(n); r.E = new Float64Array(n); r.A = new Float64Array(n);
		for (d = 0; d < r.p; d++) {
			var t = 0;
			for (i = r.devStart[d]; i < r.devStart[d + 1]; i++) {
				var j = 6 * i, k = o[j];
				r.K[i] = k & 3;
				r.OV[i] = k & 4 ? 1 : (i > r.devStart[d] && r.OV[i - 1] === 1 ? 2 : 0);
				r.MB[i] = o[j + 1]; r.ST[i] = o[j + 2];
				/* an overlapped pair shares its slot: the second op starts with the first */
				var start = r.OV[i] === 2 ? r.S[i - 1] * r.tick : t + o[j + 3];
				r.S[i] = start / r.tick;
				r.E[i] = (start + o[j + 4]) / r.tick;
				t = Math.max(t, start + o[j + 4]);
				r.A[i] = o[j + 5];
			}
		}
		r.ops = null;
		r.dev = new Int32Array(n);
		for (d = 0; d < r.p; d++)
			for (i = r.devStart[d]; i < r.devStart[d + 1]; i++) r.dev[i] = d;
		var m = r.msgs || [], nm = m.length / 4;
		r.nmsgs = nm;
		r.MF = new Uint32Array(nm); r.MT = new Uint32Array(nm);
		r.MS = new Float64Array(nm); r.ME = new Float64Array(nm);
		for (i = 0; i < nm; i++) {
			r.MF[i] = m[4 * i]; r.MT[i] = m[4 * i + 1];
			r.MS[i] = r.E[r.MF[i]] + m[4 * i + 2] / r.tick;
			r.ME[i] = r.MS[i] + m[4 * i + 3] / r.tick;
		}
		r.msgs = null;
		/* each op's slack in time units, when the run has them: none makes it critical */
		if (r.slack) {
			r.SL = new Float64Array(n);
			for (i = 0; i < n; i++) r.SL[i] = r.slack[i] / r.slackTick;
			r.slack = null;
		}
		/* memory: an allocation at its op's start, a release at its op's end */
		r.mem = [];
		var peak = 0;
		for (d = 0; d < r.p; d++) {
			var ev = [];
			for (i = r.devStart[d]; i < r.devStart[d + 1]; i++)
				if (r.A[i] !== 0) ev.push([r.A[i] > 0 ? r.S[i] : r.E[i], r.A[i]]);
			ev.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });
			var T = new Float64Array(ev.length), L = new Float64Array(ev.length), lvl = 0;
			for (i = 0; i < ev.length; i++) {
				lvl += ev[i][1];
				T[i] = ev[i][0]; L[i] = lvl;
				if (lvl > peak) peak = lvl;
			}
			r.mem.push({T: T, L: L});
		}
		r.memPeak = peak;
	}

	if (D.kind === "sweep") {
		sweepPage();
		return;
	}
	D.runs.forEach(function (r) {
		r.title = (r.label !== "-" ? r.label + ": " : "") + r.schedule + "  p=" + r.p + " v=" +
			r.v + " m=" + r.m + "  makespan " + num(r.makespan) + " " + r.unit +
			"  bubble_ratio " + r.bubble_ratio.toFixed(4);
	});
	/* a serving run's requests: packed into lanes, a request in the first lane free when it
	 * arrives (else the one freed first), at most RLANES of them */
	var RLANES = 24, RH = 5;
	if (D.requests) {
		var q = D.requests, nq = q.length / 6, R = D.runs[0];
		R.req = {n: nq, A: new Float64Array(nq), M: new Float64Array(nq), F: new Float64Array(nq),
			E: new Float64Array(nq), P: new Uint32Array(nq), O: new Uint32Array(nq), lane: new Uint8Array(nq)};
		var free = [];
		for (var k = 0; k < nq; k++) {
			var g = R.req;
			g.A[k] = q[6 * k]; g.M[k] = q[6 * k + 1]; g.F[k] = q[6 * k + 2]; g.E[k] = q[6 * k + 3];
			g.P[k] = q[6 * k + 4]; g.O[k] = q[6 * k + 5];
			var best = -1;
			for (var l = 0; l < free.length; l++)
				if (free[l] <= g.A[k]) { best = l; break; }
			if (best < 0 && free.length < RLANES) { best = free.length; free.push(0); }
			if (best < 0) {
				best = 0;
				for (l = 1; l < free.length; l++) if (free[l] < free[best]) best = l;
			}
			g.lane[k] = best; free[best] = Math.max(free[best], g.E[k]);
		}
		R.reqLanes = free.length;
	}
	function reqHeight(r) { return r.req ? 18 + r.reqLanes * RH + 6 : 0; }
	var runs = D.runs, lo = Infinity, hi = -Infinity, total = 0;
	runs.forEach(function (r) {
		decode(r);
		lo = Math.min(lo, r.origin / r.tick);
		hi = Math.max(hi, r.origin / r.tick + r.makespan);
		/* the streams may run past the last op */
		(r.streams || []).forEach(function (v) { hi = Math.max(hi, v.end); });
		total += r.nops;
	});
	if (!(hi > lo)) hi = lo + 1;
	var shortest = Infinity;
	runs.forEach(function (r) {
		for (var i = 0; i < r.nops; i++)
			if (r.E[i] > r.S[i] && r.E[i] - r.S[i] < shortest) shortest = r.E[i] - r.S[i];
	});
	if (!isFinite(shortest)) shortest = (hi - lo) / 1000;

	var canvas = el("timeline"), ctx = canvas.getContext("2d"), tip = el("tip");
	var view = {t0: lo, t1: hi}, stats = {drawn: 0, aggregated: 0, arrows: 0, frames: 0};
	var width = 0, height = 0, dpr = window.devicePixelRatio || 1;
	var tops = [];
	(function layout() {
		var y = 4;
		runs.forEach(function (r) { tops.push(y); y += TITLE + r.p * ROW + BUBBLE + reqHeight(r) + GAP; });
		height = y + AXIS;
	})();

	function X(t) { return LEFT + (t - view.t0) * (width - LEFT - RIGHT) / (view.t1 - view.t0); }
	function T(x) { return view.t0 + (x - LEFT) * (view.t1 - view.t0) / (width - LEFT - RIGHT); }

	/* First op of device d of r whose end is after t (ops of a device run in order). */
	function firstAfter(r, d, t) {
		var a = r.devStart[d], b = r.devStart[d + 1];
		while (a < b) {
			var h = (a + b) >> 1;
			if (r.E[h] <= t) a = h + 1; else b = h;
		}
		return a;
	}

	function label(r, i) {
		var k = r.kindLetters[r.K[i]], c = r.chunkOf[r.ST[i]];
		/* as report_op_label writes it: lower case on odd chunks, the chunk after a dot when
		 * there are more than two */
		return (c % 2 ? k.toLowerCase() : k) + r.MB[i] + (r.v > 2 ? "." + c : "");
	}

	/* busy[c]: device time busy in pixel column c of the run being drawn, in pixels */
	var busy = new Float64Array(0);
	function addBusy(x0, x1) {
		for (var c = Math.floor(x0); c < x1; c++)
			busy[c] += Math.min(x1, c + 1) - Math.max(x0, c);
	}

	/* the outline of a critical op (no slack), as the legend shows it */
	var CRIT = "#111";
	function drawOps(r, top) {
		var xl = LEFT, xr = width - RIGHT;
		if (busy.length < width + 2) busy = new Float64Array(width + 2);
		busy.fill(0);
		for (var d = 0; d < r.p; d++) {
			var y = top + TITLE + d * ROW, col = -1, cov = [0, 0, 0, 0], crit = false;
			/* a pixel column of merged ops: the kinds stacked by the share of it they cover,
			 * as high as the column is busy */
			var flush = function () {
				if (col < 0) return;
				var sum = cov[0] + cov[1] + cov[2] + cov[3], h = LANE * Math.min(1, sum), yy = y + LANE;
				for (var k = 0; k < 4; k++) {
					if (cov[k] === 0) continue;
					var part = h * cov[k] / sum;
					ctx.fillStyle = COLOR[k];
					ctx.fillRect(col, yy - part, 1, part);
					yy -= part;
				}
				/* a column holding a critical op: a mark over the lane */
				if (crit) {
					ctx.fillStyle = CRIT;
					ctx.fillRect(col, y, 1, 2);
				}
				cov = [0, 0, 0, 0]; col = -1; crit = false;
			};
			ctx.fillStyle = "#f1f1f1";
			ctx.fillRect(xl, y, xr - xl, LANE);
			for (var i = firstAfter(r, d, view.t0); i < r.devStart[d + 1]; i++) {
				if (r.S[i] >= view.t1) break;
				var x0 = Math.max(xl, X(r.S[i])), x1 = Math.min(xr, X(r.E[i]));
				var half = r.OV[i] !== 0, oy = r.OV[i] === 2 ? LANE / 2 : 0;
				if (r.OV[i] !== 2 && x1 > x0) addBusy(x0, x1);
				if (x1 - x0 >= 1.5) {
					flush();
					ctx.fillStyle = (r.chunkOf[r.ST[i]] % 2 ? LIGHT : COLOR)[r.K[i]];
					ctx.fillRect(x0, y + oy, x1 - x0, half ? LANE / 2 : LANE);
					if (x1 - x0 >= 3) {
						ctx.fillStyle = "#fff";
						ctx.fillRect(x1 - 0.5, y + oy, 0.5, half ? LANE / 2 : LANE);
					}
					if (r.SL && r.SL[i] === 0) {
						ctx.strokeStyle = CRIT;
						ctx.lineWidth = 2;
						ctx.strokeRect(x0 + 1, y + oy + 1, Math.max(0, x1 - x0 - 2.5),
							(half ? LANE / 2 : LANE) - 2);
					}
					var s = label(r, i);
					if (!half && x1 - x0 >= 7 * s.length + 4) {
						ctx.fillStyle = r.chunkOf[r.ST[i]] % 2 ? "#222" : "#fff";
						ctx.fillText(s, (x0 + x1) / 2, y + 13);
					}
					stats.drawn++;
				} else {
					var c = Math.floor(x0);
					if (c !== col) { flush(); col = c; }
					cov[r.K[i]] += Math.max(x1 - x0, 0);
					crit = crit || (r.SL && r.SL[i] === 0);
					stats.aggregated++;
				}
			}
			flush();
		}
	}

	/* Each device's communication streams as thin bars along the bottom of its lane, one
	 * height per stream, and its exposed time past its last op as a red band over the lane. */
	var SCOLOR = ["#17becf", "#bcbd22"];
	function drawStreams(r, top) {
		if (!r.streams) return;
		r.streams.forEach(function (v, d) {
			var y = top + TITLE + d * ROW, sp = v.spans;
			if (v.end > v.last) {
				ctx.fillStyle = "rgba(196,78,82,0.35)";
				ctx.fillRect(X(v.last), y, Math.max(1, X(v.end) - X(v.last)), LANE);
			}
			for (var i = 0; i < sp.length; i += 3) {
				if (sp[i + 2] < view.t0 || sp[i + 1] > view.t1) continue;
				ctx.fillStyle = SCOLOR[sp[i] % SCOLOR.length];
				var x0 = X(sp[i + 1]), x1 = X(sp[i + 2]);
				ctx.fillRect(x0, y + LANE - 3 * (sp[i] + 1), Math.max(1, x1 - x0), 3);
			}
		});
	}

	function drawWires(r, top) {
		var d, i, visible = [];
		for (i = 0; i < r.nmsgs; i++) {
			var e = r.S[r.MT[i]];
			if (r.MS[i] < view.t1 && e > view.t0) visible.push(i);
		}
		ctx.fillStyle = "#777";
		visible.forEach(function (k) {
			d = r.dev[r.MF[k]];
			var y = top + TITLE + d * ROW + LANE + 1;
			var x0 = X(r.MS[k]), x1 = X(r.ME[k]);
			ctx.fillRect(x0, y, Math.max(1, x1 - x0), WIRE - 2);
		});
		if (!el("arrows").checked || visible.length > 3000) return;
		ctx.strokeStyle = "rgba(60,60,60,0.55)";
		ctx.fillStyle = "rgba(60,60,60,0.8)";
		visible.forEach(function (k) {
			var a = r.dev[r.MF[k]], b = r.dev[r.MT[k]];
			var ya = top + TITLE + a * ROW + LANE + WIRE / 2;
			var yb = top + TITLE + b * ROW + (b > a ? 0 : LANE);
			var xa = X(r.MS[k]), xb = X(r.S[r.MT[k]]);
			ctx.beginPath(); ctx.moveTo(xa, ya); ctx.lineTo(xb, yb); ctx.stroke();
			var ang = Math.atan2(yb - ya, xb - xa);
			ctx.beginPath();
			ctx.moveTo(xb, yb);
			ctx.lineTo(xb - 6 * Math.cos(ang - 0.4), yb - 6 * Math.sin(ang - 0.4));
			ctx.lineTo(xb - 6 * Math.cos(ang + 0.4), yb - 6 * Math.sin(ang + 0.4));
			ctx.fill();
			stats.arrows++;
		});
	}

	function drawMemory(r, top) {
		if (!(r.memPeak > 0)) return;
		for (var d = 0; d < r.p; d++) {
			var m = r.mem[d], y = top + TITLE + d * ROW + LANE + WIRE, n = m.T.length;
			ctx.fillStyle = "#fafafa";
			ctx.fillRect(LEFT, y, width - LEFT - RIGHT, MEM - 2);
			if (n === 0) continue;
			var a = 0, b = n;
			while (a < b) { var h = (a + b) >> 1; if (m.T[h] < view.t0) a = h + 1; else b = h; }
			var i = Math.max(0, a - 1), lvl = m.T[i] <= view.t0 ? m.L[i] : 0;
			var xPrev = LEFT, colMax = lvl, col = Math.floor(LEFT);
			ctx.fillStyle = "rgba(118,68,138,0.75)";
			var bar = function (x0, x1, l) {
				var hgt = (MEM - 3) * l / r.memPeak;
				ctx.fillRect(x0, y + MEM - 2 - hgt, Math.max(1, x1 - x0), hgt);
			};
			for (i = a; i < n && m.T[i] < view.t1; i++) {
				var x = X(m.T[i]);
				if (Math.floor(x) !== col) {
					bar(xPrev, x, Math.max(lvl, colMax));
					xPrev = x; col = Math.floor(x); colMax = 0;
				}
				lvl = m.L[i];
				colMax = Math.max(colMax, lvl);
			}
			bar(xPrev, width - RIGHT, Math.max(lvl, colMax));
		}
	}

	/* The share of the run's devices idle in each pixel column, as a bar from the strip's top. */
	function drawBubble(r, top) {
		var y = top + TITLE + r.p * ROW, x0 = Math.floor(LEFT), x1 = Math.ceil(width - RIGHT);
		var t0 = Math.max(view.t0, r.origin / r.tick), t1 = Math.min(view.t1, r.origin / r.tick + r.makespan);
		ctx.fillStyle = "#fafafa";
		ctx.fillRect(LEFT, y, width - LEFT - RIGHT, BUBBLE - 6);
		ctx.fillStyle = "#c44e52";
		var sum = 0, n = 0;
		for (var c = x0; c < x1; c++) {
			/* only the part of the column inside the run */
			var a = Math.max(c, X(t0)), b = Math.min(c + 1, X(t1));
			if (b <= a) continue;
			var idle = Math.max(0, Math.min(1, 1 - busy[c] / (r.p * (b - a))));
			ctx.fillRect(c, y, 1, idle * (BUBBLE - 6));
			sum += idle * (b - a); n += b - a;
		}
		r.viewBubble = n > 0 ? sum / n : 0;
	}

	/* Each request as a bar in its lane: waiting (grey), prefill to its first token (orange),
	 * decode to its end (blue). */
	function drawRequests(r, top) {
		if (!r.req) return;
		var g = r.req, y0 = top + TITLE + r.p * ROW + BUBBLE + 16;
		for (var k = 0; k < g.n; k++) {
			if (g.E[k] < view.t0 || g.A[k] > view.t1) continue;
			var y = y0 + g.lane[k] * RH;
			var xa = X(g.A[k]), xm = X(g.M[k]), xf = X(g.F[k]), xe = X(g.E[k]);
			ctx.fillStyle = "#c9c9c9"; ctx.fillRect(xa, y, Math.max(0.5, xm - xa), RH - 1);
			ctx.fillStyle = "#f28e2b"; ctx.fillRect(xm, y, Math.max(0.5, xf - xm), RH - 1);
			ctx.fillStyle = "#4e79a7"; ctx.fillRect(xf, y, Math.max(0.5, xe - xf), RH - 1);
		}
	}

	function drawAxis(y) {
		var span = view.t1 - view.t0, step = niceStep(span / Math.max(2, (width - LEFT) / 110));
		ctx.strokeStyle = "#333"; ctx.fillStyle = "#333";
		ctx.beginPath(); ctx.moveTo(LEFT, y); ctx.lineTo(width - RIGHT, y); ctx.stroke();
		for (var t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
			var x = X(t);
			ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(x, y + 5); ctx.stroke();
			ctx.fillText(num(t), x, y + 16);
			ctx.strokeStyle = "rgba(0,0,0,0.06)";
			ctx.beginPath(); ctx.moveTo(x, 4); ctx.lineTo(x, y); ctx.stroke();
			ctx.strokeStyle = "#333";
		}
		ctx.textAlign = "right";
		ctx.fillText("time (" + runs[0].unit + ")", LEFT - 6, y + 16);
		ctx.textAlign = "center";
	}

	function draw() {
		width = canvas.parentNode.clientWidth || 1000;
		canvas.width = Math.round(width * dpr); canvas.height = Math.round(height * dpr);
		canvas.style.width = width + "px"; canvas.style.height = height + "px";
		ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, width, height);
		ctx.font = "10px sans-serif"; ctx.textAlign = "center";
		stats.drawn = stats.aggregated = stats.arrows = 0;
		runs.forEach(function (r, k) {
			var top = tops[k];
			ctx.save();
			ctx.beginPath(); ctx.rect(LEFT, top, width - LEFT - RIGHT + 1, TITLE + r.p * ROW + BUBBLE + reqHeight(r));
			ctx.clip();
			drawOps(r, top); drawBubble(r, top); drawMemory(r, top); drawWires(r, top);
			drawStreams(r, top); drawRequests(r, top);
			ctx.restore();
			ctx.fillStyle = "#222"; ctx.textAlign = "left"; ctx.font = "bold 12px sans-serif";
			ctx.fillText(r.title, 6, top + 14);
			ctx.font = "11px sans-serif"; ctx.textAlign = "right";
			for (var d = 0; d < r.p; d++) {
				var y = top + TITLE + d * ROW;
				ctx.fillText(r.devices[d].label, LEFT - 6, y + 13);
				if (r.memPeak > 0) {
					ctx.font = "9px sans-serif"; ctx.fillStyle = "#76448a";
					ctx.fillText("memory", LEFT - 6, y + LANE + WIRE + 10);
					ctx.font = "11px sans-serif"; ctx.fillStyle = "#222";
				}
			}
			ctx.fillStyle = "#c44e52"; ctx.font = "10px sans-serif";
			ctx.fillText("bubble " + (100 * r.viewBubble).toFixed(1) + "%", LEFT - 6, top + TITLE + r.p * ROW + 12);
			if (r.req) {
				ctx.fillStyle = "#222";
				ctx.fillText(r.req.n + " requests", LEFT - 6, top + TITLE + r.p * ROW + BUBBLE + 24);
			}
			ctx.fillStyle = "#222"; ctx.textAlign = "center";
		});
		drawAxis(height - AXIS + 4);
		stats.frames++;
		el("window").textContent = num(view.t0) + " to " + num(view.t1) + " " + runs[0].unit +
			" (" + stats.drawn + " ops drawn one by one, " + stats.aggregated + " in pixel columns)";
	}

	var pending = false;
	function redraw() {
		if (pending) return;
		pending = true;
		requestAnimationFrame(function () { pending = false; draw(); });
	}

	function setWindow(t0, t1) {
		/* at the closest, the shortest op fills the view */
		var span = hi - lo, minSpan = Math.max(shortest, span * 1e-9, 1e-12);
		if (t1 - t0 < minSpan) { var c = (t0 + t1) / 2; t0 = c - minSpan / 2; t1 = c + minSpan / 2; }
		if (t1 - t0 > span * 1.05) { t0 = lo - span * 0.025; t1 = hi + span * 0.025; }
		view.t0 = t0; view.t1 = t1;
		draw();
	}
	function zoomAt(x, f) {
		var t = T(x);
		setWindow(t - (t - view.t0) * f, t + (view.t1 - t) * f);
	}
	function fit() { setWindow(lo, hi); }

	/* The op under (x, y), or null: [run, op index]. */
	function hit(x, y) {
		for (var k = 0; k < runs.length; k++) {
			var r = runs[k], yy = y - tops[k] - TITLE;
			var ry = yy - r.p * ROW - BUBBLE - 16;
			if (r.req && ry >= 0 && ry < r.reqLanes * RH && x >= LEFT) {
				var lane = Math.floor(ry / RH), t = T(x), g = r.req;
				for (var q = 0; q < g.n; q++)
					if (g.lane[q] === lane && g.A[q] <= t && g.E[q] >= t) return [r, q, "request"];
				return null;
			}
			if (yy < 0 || yy >= r.p * ROW) continue;
			var d = Math.floor(yy / ROW);
			if (yy - d * ROW >= LANE || x < LEFT) return null;
			var t = T(x), i = firstAfter(r, d, t);
			var slack = (view.t1 - view.t0) / (width - LEFT - RIGHT);
			if (i < r.devStart[d + 1] && r.S[i] <= t + slack) {
				if (r.OV[i] === 1 && yy - d * ROW >= LANE / 2) i++;
				return [r, i];
			}
			return null;
		}
		return null;
	}

	function describeRequest(r, q) {
		var g = r.req, u = " " + r.unit;
		return ["<b>request " + q + "</b>: " + g.P[q] + " prompt, " + g.O[q] + " output tokens",
			"arrived " + num(g.A[q]) + u + ", admitted " + num(g.M[q]) + u + " (waited " + num(g.M[q] - g.A[q]) + ")",
			"first token " + num(g.F[q]) + u + " (time to first token " + num(g.F[q] - g.A[q]) + ")",
			"finished " + num(g.E[q]) + u + " (latency " + num(g.E[q] - g.A[q]) + ")"].join("<br>");
	}

	function describe(r, i, what) {
		if (what === "request") return describeRequest(r, i);
		var d = r.dev[i], prev = i > r.devStart[d] ? r.E[i - 1] : r.origin / r.tick;
		var lines = [
			"<b>" + label(r, i) + "</b> " + r.kindNames[r.K[i]],
			"micro-batch " + r.MB[i] + ", stage " + r.ST[i] + ", chunk " + r.chunkOf[r.ST[i]] +
				", GPU " + d,
			"start " + num(r.S[i]) + ", end " + num(r.E[i]) + " " + r.unit +
				" (" + num(r.E[i] - r.S[i]) + ")",
			"idle before it: " + num(Math.max(0, r.S[i] - prev)) + " " + r.unit
		];
		if (r.SL)
			lines.push(r.SL[i] === 0 ? "critical: no slack (any delay lengthens the step)"
				: "slack " + num(r.SL[i]) + " " + r.unit + " (it may take that much longer)");
		if (!r.lastIn) {
			/* each op's last arriving input, found once */
			r.lastIn = new Int32Array(r.nops).fill(-1);
			for (var k = 0; k < r.nmsgs; k++) {
				var to = r.MT[k], was = r.lastIn[to];
				if (was < 0 || r.ME[k] > r.ME[was]) r.lastIn[to] = k;
			}
		}
		var last = r.lastIn[i];
		if (last >= 0)
			lines.push("last input: " + label(r, r.MF[last]) + " from GPU " + r.dev[r.MF[last]] +
				", sent " + num(r.MS[last]) + ", arrived " + num(r.ME[last]) +
				"; waited " + num(Math.max(0, Math.min(r.S[i], r.ME[last]) - prev)) + " for it");
		return lines.join("<br>");
	}

	var drag = null;
	canvas.addEventListener("wheel", function (e) {
		e.preventDefault();
		zoomAt(e.offsetX, Math.exp(e.deltaY * 0.0015));
	}, {passive: false});
	canvas.addEventListener("mousedown", function (e) {
		drag = {x: e.clientX, t0: view.t0, t1: view.t1};
	});
	window.addEventListener("mouseup", function () { drag = null; });
	canvas.addEventListener("mousemove", function (e) {
		if (drag) {
			var dt = (e.clientX - drag.x) * (drag.t1 - drag.t0) / (width - LEFT - RIGHT);
			view.t0 = drag.t0 - dt; view.t1 = drag.t1 - dt;
			tip.style.display = "none";
			redraw();
			return;
		}
		var h = hit(e.offsetX, e.offsetY);
		if (!h) { tip.style.display = "none"; return; }
		tip.innerHTML = describe(h[0], h[1], h[2]);
		tip.style.display = "block";
		tip.style.left = Math.min(e.pageX + 12, document.body.scrollWidth - 320) + "px";
		tip.style.top = e.pageY + 14 + "px";
	});
	canvas.addEventListener("mouseleave", function () { tip.style.display = "none"; });
	canvas.addEventListener("dblclick", fit);
	window.addEventListener("keydown", function (e) {
		var span = view.t1 - view.t0, mid = LEFT + (width - LEFT - RIGHT) / 2;
		if (e.key === "+" || e.key === "=") zoomAt(mid, 0.5);
		else if (e.key === "-") zoomAt(mid, 2);
		else if (e.key === "0") fit();
		else if (e.key === "ArrowLeft") setWindow(view.t0 - span / 4, view.t1 - span / 4);
		else if (e.key === "ArrowRight") setWindow(view.t0 + span / 4, view.t1 + span / 4);
	});
	el("fit").onclick = fit;
	el("zin").onclick = function () { zoomAt(LEFT + (width - LEFT - RIGHT) / 2, 0.5); };
	el("zout").onclick = function () { zoomAt(LEFT + (width - LEFT - RIGHT) / 2, 2); };
	el("arrows").onchange = draw;
	window.addEventListener("resize", redraw);

	/* the bubble of each device, split into fill, drain, waits for transfers and the rest */
	function breakdown() {
		var html = "";
		runs.forEach(function (r) {
			html += "<h3>" + esc(r.title) + "</h3><table class=\"bubble\"><tr><th>device</th>" +
				"<th>busy</th><th>fill</th><th>drain</th><th>comm wait</th><th>other idle</th>" +
				"<th>bubble</th><th>peak activations</th><th class=\"bar\"></th></tr>";
			r.devices.forEach(function (v) {
				var span = r.makespan, other = Math.max(0, v.idle - v.fill - v.drain - v.comm_wait);
				var parts = [["busy", v.busy], ["fill", v.fill], ["drain", v.drain],
					["comm", v.comm_wait], ["other", other]];
				html += "<tr><td>" + esc(v.label) + "</td><td>" + num(v.busy) + "</td><td>" +
					num(v.fill) + "</td><td>" + num(v.drain) + "</td><td>" + num(v.comm_wait) +
					"</td><td>" + num(other) + "</td><td>" + num(span > 0 ? v.idle / span : 0) +
					"</td><td>" + num(v.peak_activations) + "</td><td class=\"bar\">";
				parts.forEach(function (p) {
					html += "<span class=\"" + p[0] + "\" style=\"width:" +
						(span > 0 ? 100 * p[1] / span : 0) + "%\" title=\"" + p[0] + " " +
						num(p[1]) + "\"></span>";
				});
				html += "</td></tr>";
			});
			html += "</table>";
			html += streamsTable(r);
		});
		el("bubbles").innerHTML = html;
	}

	/* With communication streams: each device's exposed and stream time by kind, and the
	 * step taken apart. */
	function streamsTable(r) {
		if (!r.streams) return "";
		var K = r.commKinds, html = "<table class=\"streams\"><tr><th>device</th><th>end</th>";
		K.forEach(function (k) { html += "<th>exposed " + k + "</th><th>" + k + " stream</th>"; });
		html += "</tr>";
		r.streams.forEach(function (v, d) {
			html += "<tr><td>" + esc(r.devices[d].label) + "</td><td>" + num(v.end) + "</td>";
			K.forEach(function (k, j) {
				html += "<td>" + num(v.exposed[j]) + "</td><td>" + num(v.comm[j]) + "</td>";
			});
			html += "</tr>";
		});
		html += "</table>";
		var b = r.breakdown;
		if (b) {
			var parts = [["compute", b.compute], ["bubble", b.bubble], ["exposed p2p", b.exposed_p2p]];
			K.forEach(function (k, j) { parts.push(["exposed " + k, b.exposed[j]]); });
			parts.push(["optimizer", b.optimizer], ["other", b.other]);
			html += "<p class=\"sum\">step " + num(b.step_time) + " " + r.unit + " on GPU " +
				b.device + " = " + parts.map(function (p) { return p[0] + " " + num(p[1]); }).join(" + ") +
				"</p>";
		}
		return html;
	}

	function esc(s) {
		return String(s).replace(/[&<>"]/g, function (c) {
			return {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;"}[c];
		});
	}

	function legend() {
		var seen = [false, false, false, false], html = "";
		runs.forEach(function (r) { for (var i = 0; i < r.nops; i++) seen[r.K[i]] = true; });
		for (var k = 0; k < 4; k++)
			if (seen[k])
				html += "<span><i style=\"background:" + COLOR[k] + "\"></i>" +
					runs[0].kindLetters[k] + " " + runs[0].kindNames[k] + "</span>";
		if (runs.some(function (r) { return r.v > 1; }))
			html += "<span><i style=\"background:" + LIGHT[0] + "\"></i>odd chunks lighter</span>";
		if (runs.some(function (r) { return r.SL; }))
			html += "<span><i style=\"box-sizing:border-box;border:2px solid " + CRIT +
				"\"></i>critical: no slack (outlined; a mark over merged ops)</span>";
		if (runs.some(function (r) { return r.nmsgs > 0; }))
			html += "<span><i style=\"background:#777\"></i>transfers, arrows to the consumer</span>";
		html += "<span><i style=\"background:#c44e52\"></i>bubble over time: the share of devices idle (in view)</span>";
		if (runs.some(function (r) { return r.memPeak > 0; }))
			html += "<span><i style=\"background:#76448a\"></i>activation memory</span>";
		var withStreams = runs.filter(function (r) { return r.streams; });
		if (withStreams.length > 0) {
			withStreams[0].streamNames.forEach(function (n, st) {
				html += "<span><i style=\"background:" + SCOLOR[st % SCOLOR.length] + "\"></i>" +
					esc(n) + " stream (under the ops)</span>";
			});
			html += "<span><i style=\"background:rgba(196,78,82,0.35)\"></i>exposed: streams past the last op</span>";
		}
		if (runs.some(function (r) { return r.req; }))
			html += "<span><i style=\"background:#c9c9c9\"></i>request waiting</span><span><i style=\"background:#f28e2b\"></i>to its first token</span><span><i style=\"background:#4e79a7\"></i>decoding</span>";
		el("legend").innerHTML = html;
	}

	el("opcount").textContent = String(total);
	legend();
	breakdown();
	fit();
	window.ppsimView = {
		ops: total, runs: runs.length, stats: stats, view: view, readyMs: performance.now() - began,
		setWindow: setWindow, fit: fit, zoomAt: zoomAt,
		/* the tooltip text at canvas point (x, y), or null */
		hit: function (x, y) { var h = hit(x, y); return h ? describe(h[0], h[1], h[2]) : null; },
		/* the canvas point at the middle of op i of run k */
		locate: function (k, i) {
			var r = runs[k];
			return {x: (Math.max(LEFT, X(r.S[i])) + Math.min(width - RIGHT, X(r.E[i]))) / 2,
				y: tops[k] + TITLE + r.dev[i] * ROW + (r.OV[i] === 2 ? 0.75 : r.OV[i] === 1 ? 0.25 : 0.5) * LANE};
		}
	};
	document.body.setAttribute("data-ready", "1");

	/* A sweep: a heatmap of one figure over two axes, each cell the best point with those two
	 * values; hover shows that point's settings and figures. */
	function sweepPage() {
		var FIGURES = ["makespan", "step_time", "bubble_ratio", "utilization", "throughput",
			"tokens_per_s", "mfu", "peak_activations", "memory_bytes", "p2p_time", "messages"];
		var HIGHER = {throughput: 1, tokens_per_s: 1, mfu: 1, utilization: 1};
		var pts = D.points, axes = D.axes, ok = 0;
		pts.forEach(function (p) { if (p.record.status === "ok") ok++; });
		el("points").textContent = String(pts.length);
		el("simulated").textContent = String(ok);
		var figures = FIGURES.filter(function (f) {
			return pts.some(function (p) { return typeof p.record[f] === "number"; });
		});
		var sx = el("sx"), sy = el("sy"), sm = el("metric");
		var opt = function (sel, v, text) {
			var o = document.createElement("option"); o.value = v; o.textContent = text; sel.appendChild(o);
		};
		opt(sy, -1, "(none)"); opt(sx, -1, "(none)");
		axes.forEach(function (a, i) { opt(sy, i, a.label); opt(sx, i, a.label); });
		figures.forEach(function (f) { opt(sm, f, f); });
		sy.value = axes.length > 1 ? 0 : -1;
		sx.value = axes.length > 1 ? 1 : axes.length - 1;
		sm.value = figures.indexOf("bubble_ratio") >= 0 && figures.indexOf("step_time") < 0 ?
			"bubble_ratio" : figures.indexOf("step_time") >= 0 ? "step_time" : figures[0];
		var cells = [];
		function draw() {
			var ax = Number(sx.value), ay = Number(sy.value), f = sm.value, hiBest = !!HIGHER[f];
			var nx = ax >= 0 ? axes[ax].values.length : 1, ny = ay >= 0 ? axes[ay].values.length : 1;
			cells = [];
			for (var i = 0; i < nx * ny; i++) cells.push(null);
			var lo = Infinity, hi = -Infinity;
			pts.forEach(function (p) {
				var v = p.record[f];
				if (p.record.status !== "ok" || typeof v !== "number") return;
				var k = (ay >= 0 ? p.at[ay] : 0) * nx + (ax >= 0 ? p.at[ax] : 0), c = cells[k];
				if (c === null || (hiBest ? v > c.v : v < c.v)) cells[k] = {v: v, p: p};
				lo = Math.min(lo, v); hi = Math.max(hi, v);
			});
			var html = "<table class=\"heat\"><tr><th>" +
				(ay >= 0 ? esc(axes[ay].label) : "") + " \\ " + (ax >= 0 ? esc(axes[ax].label) : "") + "</th>";
			for (var x = 0; x < nx; x++)
				html += "<th>" + (ax >= 0 ? esc(axes[ax].values[x]) : "") + "</th>";
			html += "</tr>";
			for (var y = 0; y < ny; y++) {
				html += "<tr><th>" + (ay >= 0 ? esc(axes[ay].values[y]) : "") + "</th>";
				for (x = 0; x < nx; x++) {
					var c = cells[y * nx + x];
					if (c === null) { html += "<td class=\"none\">&ndash;</td>"; continue; }
					var q = hi > lo ? (c.v - lo) / (hi - lo) : 0.5;
					if (hiBest) q = 1 - q;
					/* best green, worst red */
					var col = "hsl(" + Math.round(120 * (1 - q)) + ",55%," + Math.round(78 - 18 * Math.abs(q - 0.5)) + "%)";
					html += "<td data-k=\"" + (y * nx + x) + "\" style=\"background:" + col + "\">" +
						num(c.v) + "</td>";
				}
				html += "</tr>";
			}
			el("heat").innerHTML = html + "</table>";
		}
		var tip = el("tip");
		el("heat").addEventListener("mousemove", function (e) {
			var k = e.target.getAttribute && e.target.getAttribute("data-k");
			if (k === null || !cells[k]) { tip.style.display = "none"; return; }
			var r = cells[k].p.record, lines = [];
			Object.keys(r).forEach(function (key) {
				if (r[key] !== null && key !== "status" && key !== "reason") lines.push(esc(key) + ": " + esc(r[key]));
			});
			tip.innerHTML = lines.join("<br>");
			tip.style.display = "block";
			tip.style.left = e.pageX + 12 + "px"; tip.style.top = e.pageY + 14 + "px";
		});
		el("heat").addEventListener("mouseleave", function () { tip.style.display = "none"; });
		sx.onchange = sy.onchange = sm.onchange = draw;
		draw();
		window.ppsimView = {points: pts.length, simulated: ok, cells: function () { return cells; },
			draw: draw, readyMs: performance.now() - began};
		document.body.setAttribute("data-ready", "1");
	}
})();
