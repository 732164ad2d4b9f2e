/* The interactive viewer of ppsim's --html report. It reads window.PPSIM (written by
 * src/report/html.c) and draws every run on one time axis: per device a lane of ops, under it
 * its communication streams (when the run has them), a thin lane of its outgoing transfers and
 * a lane of its activation memory (with activation offload, the activations in host memory
 * stacked over the GPU's); in a strip that stays at the bottom of the window, each
 * run's bubble over time and the time axis.
 *
 * Truth at every size: each pixel column of a lane is drawn as high as the share of it the
 * device is busy (a column's busy time comes from per-device prefix sums of busy time, exact
 * at any zoom), the heights rounded with the error carried to the next column, so that the
 * share of a lane's pixels drawn busy is the device's busy share in view (to a pixel of the
 * lane). A column one op covers takes that op's colour; a column of several ops stacks their
 * kinds by the share they cover. A redraw writes the pixels of the lanes in view (the canvas
 * is as tall as the window and follows the scroll); at each column boundary it reads a bucket
 * of an index of the sorted times (index()) and a record in it (a busy interval's times,
 * prefix sums and kinds together), the searches of a lane in passes of independent reads
 * (locate()); the memory and transfer lanes, where a column covers many events, read cells of
 * time (cells()) and search only where a cell at a column's end could change it: so a frame
 * costs the pixels times a few memory reads whatever the run's size (at the whole view of a
 * large run those reads are misses of the cache and of the page tables, and their count is
 * the frame's time).
 *
 * Input: the wheel scrolls the page, Ctrl+wheel or a pinch zooms at the pointer, a horizontal
 * wheel or a drag pans; W/S zoom, A/D pan (as Perfetto), +/- zoom, 0 or a double click fits;
 * on the focused timeline the arrow keys move a selected op (left/right on its device, up/down
 * to the device above/below), Home/End go to a device's first/last op, F zooms to it, and its
 * details go to a live region for screen readers. window.ppsimView is the page's interface for
 * scripts and tests.
 *
 * The viewer is one function over three files, compiled in as one script in this order (the
 * Makefile's HTML_JS): html_data.js (this one: colours, searches and each run's data decoded
 * into the summaries a frame reads), html_draw.js (the layout and the drawing of a frame,
 * zoom and pan), html_input.js (what is under the pointer, the selection, input, the tables,
 * the legend and window.ppsimView). Only their concatenation is a script. */
(function () {
	"use strict";
	var D = window.PPSIM, began = performance.now();
	/* one colour per meaning, as the legend lists them */
	var COLOR = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759"];
	var LIGHT = ["#9fb7d3", "#f8c795", "#acd0a7", "#f0abac"];
	var IDLE = "#f1f1f1", BACK = "#ffffff", CRIT = "#111111", WIRE_C = "#767676",
		MEM_C = "#76448a", BUBBLE_C = "#9c755f", EXPOSED_C = "#ff9da7", SEL_C = "#c71585",
		MEMBACK = "#fafafa", HOST_C = "#1b7a6e";
	/* exposed communication inside an op (the part of its span it does not compute): a hatch
	 * of two greys over the op's column, neither a busy colour nor the idle one */
	var INNER_C = "#a0a0a0", INNER_BG = "#d3d3d3";
	var SCOLOR = ["#17becf", "#bcbd22", "#6b6ecf", "#b07aa1", "#637939"]; /* dp, tp, ep, d2h, h2d */
	var REQ_C = ["#c9c9c9", "#d4a6c8", "#86bcb6"];
	var TITLE = 22, CRITH = 5, LANE = 18, STREAM = 8, WIRE = 6, MEM = 14, GAP = 5;
	var LEFT = 150, RIGHT = 16, AXIS = 30, BUBBLE = 22;
	var ARROWS = 1000; /* the most arrows drawn: more hide what they join */

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

	/* colours: contrast (WCAG 2), the label colour of a fill, pixels for the image buffer */
	function rgb(hex) { var v = parseInt(hex.slice(1), 16); return [v >> 16 & 255, v >> 8 & 255, v & 255]; }
	function luminance(hex) {
		var c = rgb(hex).map(function (x) {
			x /= 255;
			return x <= 0.04045 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4);
		});
		return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
	}
	function contrast(a, b) {
		var x = luminance(a), y = luminance(b);
		return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
	}
	var labels = {};
	function labelOn(fill) {
		if (!labels[fill]) labels[fill] = contrast(fill, "#000000") >= contrast(fill, "#ffffff") ? "#000000" : "#ffffff";
		return labels[fill];
	}
	var LITTLE = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
	function pack(hex) {
		var c = rgb(hex);
		return (LITTLE ? (255 << 24 | c[2] << 16 | c[1] << 8 | c[0]) : (c[0] << 24 | c[1] << 16 | c[2] << 8 | 255)) >>> 0;
	}
	function shade(hex, f) {
		var c = rgb(hex).map(function (x) { return Math.round(x * f); });
		return "#" + ((1 << 24) | c[0] << 16 | c[1] << 8 | c[2]).toString(16).slice(1);
	}
	/* per kind: fill, fill on odd chunks, the separator's (an op's last column), as pixels */
	var PX = {dark: COLOR.map(pack), light: LIGHT.map(pack), darkEdge: COLOR.map(function (c) { return pack(shade(c, 0.72)); }),
		lightEdge: LIGHT.map(function (c) { return pack(shade(c, 0.72)); }), idle: pack(IDLE), back: pack(BACK),
		crit: pack(CRIT), wire: pack(WIRE_C), mem: pack(MEM_C), host: pack(HOST_C), memBack: pack(MEMBACK), bubble: pack(BUBBLE_C),
		inner: pack(INNER_C), innerBg: pack(INNER_BG)};

	/* First index in [a, b) of sorted A whose value is at least t. */
	function lower(A, a, b, t) {
		while (a < b) {
			var h = (a + b) >>> 1;
			if (A[h] < t) a = h + 1; else b = h;
		}
		return a;
	}
	/* First index in [a, b) of sorted A whose value is above t. */
	function upper(A, a, b, t) {
		while (a < b) {
			var h = (a + b) >>> 1;
			if (A[h] <= t) a = h + 1; else b = h;
		}
		return a;
	}
	/* The same over records of w numbers, sorted by their number o: the first record in
	 * [a, b) whose number o is above t (upperQ), at least t (lowerQ). A frame's searches read
	 * records that hold together what it reads at a time (a busy interval's times, prefix sums
	 * and kinds; a memory event's time and level), so that a search far from the last costs a
	 * cache line or two rather than one per array: at the whole view of a large run a column
	 * boundary's reads are misses, and their count is the frame's time. */
	function upperQ(A, w, o, a, b, t) {
		while (a < b) {
			var h = (a + b) >>> 1;
			if (A[h * w + o] <= t) a = h + 1; else b = h;
		}
		return a;
	}
	function lowerQ(A, w, o, a, b, t) {
		while (a < b) {
			var h = (a + b) >>> 1;
			if (A[h * w + o] < t) a = h + 1; else b = h;
		}
		return a;
	}
	/* An index of sorted A[0, n) (records of w numbers, sorted by number o): the first entry
	 * at least lo + k (hi - lo) / nb for k = 0 to nb, nb about n, so that a search looks at the
	 * entries of a few buckets (about as many as ops end in them), near each other in memory:
	 * a frame's search at a column boundary costs a few reads however many ops a column holds. */
	function index(A, n, w, o) {
		var lo = n ? A[o] : 0, hi = n ? A[(n - 1) * w + o] : 1, nb = Math.max(1, n), i = 0;
		if (!(hi > lo)) hi = lo + 1;
		var X = {lo: lo, step: (hi - lo) / nb, nb: nb, at: new Uint32Array(nb + 1), w: w, o: o};
		for (var k = 0; k <= nb; k++) {
			var x = lo + k * X.step;
			while (i < n && A[i * w + o] < x) i++;
			X.at[k] = i;
		}
		return X;
	}
	/* [first, end) of the entries of A (indexed by X) that upper or lower of t can return, the
	 * first at least a: those of t's bucket (found as index() drew its bounds) */
	var span2 = [0, 0];
	function near(X, n, a, t) {
		var k = Math.floor((t - X.lo) / X.step);
		if (k < 0) k = -1; else if (k > X.nb) k = X.nb;
		while (k >= 0 && t < X.lo + k * X.step) k--;
		while (k < X.nb && t >= X.lo + (k + 1) * X.step) k++;
		var b0 = k < 0 ? 0 : X.at[k], b1 = k + 1 > X.nb ? n : X.at[k + 1];
		span2[0] = a > b0 ? a : b0;
		span2[1] = b1 > span2[0] ? b1 : span2[0];
	}
	/* upperQ and lowerQ of A (indexed by X) from a on: a itself when it is the answer (the
	 * search from the last column's, which a column inside one op or gap ends at) */
	function upperAt(A, X, n, a, t) {
		var w = X.w, o = X.o;
		if (a >= n || A[a * w + o] > t) return a;
		near(X, n, a, t);
		return upperQ(A, w, o, span2[0], span2[1], t);
	}
	function lowerAt(A, X, n, a, t) {
		var w = X.w, o = X.o;
		if (a >= n || A[a * w + o] >= t) return a;
		near(X, n, a, t);
		return lowerQ(A, w, o, span2[0], span2[1], t);
	}

	/* For each of the m sorted times T[0, m), the index upperQ of A (indexed by X) returns
	 * (with lower, lowerQ's) into out[0, m). At the whole view of a large run the times fall
	 * far apart in A and each read of the index and of a record is a cache miss; so the
	 * searches run in passes of reads independent of each other (each time's bucket, its
	 * bounds, its first record, then the searches in what is read), that the processor
	 * keeps many misses in flight at once rather than waiting for each in turn. */
	var LB = new Int32Array(0), HB = new Int32Array(0), SINK = new Float64Array(1);
	function locate(A, X, n, T, m, lower, out) {
		if (LB.length < m) { LB = new Int32Array(m); HB = new Int32Array(m); }
		var at = X.at, nb = X.nb, lo = X.lo, step = X.step, w = X.w, o = X.o, c, k, t, s = 0;
		for (c = 0; c < m; c++) {
			t = T[c];
			k = Math.floor((t - lo) / step);
			if (k < 0) k = -1; else if (k > nb) k = nb;
			while (k >= 0 && t < lo + k * step) k--;
			while (k < nb && t >= lo + (k + 1) * step) k++;
			LB[c] = k;
		}
		for (c = 0; c < m; c++) {
			k = LB[c];
			LB[c] = k < 0 ? 0 : at[k];
			HB[c] = k + 1 > nb ? n : at[k + 1];
		}
		for (c = 0; c < m; c++) if (LB[c] < n) s += A[LB[c] * w + o];
		SINK[0] = s; /* (the reads kept) */
		if (lower) for (c = 0; c < m; c++) out[c] = lowerQ(A, w, o, LB[c], HB[c], T[c]);
		else for (c = 0; c < m; c++) out[c] = upperQ(A, w, o, LB[c], HB[c], T[c]);
	}

	/* Expands a run's flat arrays: per op [kind | 4 overlapped-first, micro-batch, stage, gap
	 * after the previous op of its device, duration, activation change] and with streams
	 * (r.opStride 7) the part of its span that is not compute (r.IN), per message
	 * [producer, consumer, delay after the producer's end, transfer time]; times in quanta,
	 * r.tick of them a time unit. Then the summaries a frame reads. */
	/* A large run's arrays (of run k, what "ops", "msgs" or "slack") come in pieces of r.piece
	 * entries, each a JSON data block after the page's data (src/report/html.c); a small
	 * run's in its object. As a list of the pieces, each parsed as it is first read (piece()):
	 * data parsed, not compiled, leaves nothing behind in the script's heap once read (a
	 * compiled script's literals stayed, and every full garbage collection marked them). */
	function pieces(r, k, what) {
		if (!r.piece) return [r[what] || []];
		return Array.prototype.slice.call(document.querySelectorAll(
			"script[data-ppsim-run=\"" + k + "\"][data-ppsim=\"" + what + "\"]"));
	}
	function piece(list, c) {
		var x = list[c];
		if (x && !Array.isArray(x)) {
			var block = x;
			x = list[c] = JSON.parse(block.textContent);
			block.remove();
		}
		return x;
	}
	function decode(r, kr) {
		var n = r.nops, i, d;
		var P = r.piece || Math.max(1, n), ops = pieces(r, kr, "ops"), W = r.opStride || 6, oc = -1, o = null;
		r.K = new Uint8Array(n); r.OV = new Uint8Array(n);
		r.IN = W > 6 ? new Float64Array(n) : null;
		r.MB = new Uint32Array(n); r.ST = new Uint32Array(n);
		r.S = new Float64Array(n); r.E = new Float64Array(n); r.A = new Float64Array(n);
		r.dev = new Int32Array(n);
		for (d = 0; d < r.p; d++) {
			var t = 0;
			for (i = r.devStart[d]; i < r.devStart[d + 1]; i++) {
				var c = Math.floor(i / P), j = W * (i - c * P);
				if (c !== oc) { o = piece(ops, c); oc = c; }
				var k = o[j];
				r.K[i] = k & 3;
				r.OV[i] = k & 4 ? 1 : (i > r.devStart[d] && r.OV[i - 1] === 1 ? 2 : 0);
				r.MB[i] = o[j + 1]; r.ST[i] = o[j + 2];
				/* an overlapped pair shares its slot: the second op starts with the first */
				var start = r.OV[i] === 2 ? r.S[i - 1] * r.tick : t + o[j + 3];
				r.S[i] = start / r.tick;
				r.E[i] = (start + o[j + 4]) / r.tick;
				t = Math.max(t, start + o[j + 4]);
				r.A[i] = o[j + 5];
				if (r.IN) r.IN[i] = o[j + 6] / r.tick;
				r.dev[i] = d;
				/* a piece read is let go */
				if (j + W === o.length) ops[c] = null;
			}
		}
		r.ops = o = null;
		var msgs = pieces(r, kr, "msgs"), nm = 0;
		msgs.forEach(function (m, c) { nm += piece(msgs, c).length / 4; });
		r.nmsgs = nm;
		r.MF = new Uint32Array(nm); r.MT = new Uint32Array(nm);
		r.MS = new Float64Array(nm); r.ME = new Float64Array(nm);
		i = 0;
		msgs.forEach(function (m, c) {
			for (var q = 0; q < m.length; q += 4, i++) {
				r.MF[i] = m[q]; r.MT[i] = m[q + 1];
				r.MS[i] = r.E[r.MF[i]] + m[q + 2] / r.tick;
				r.ME[i] = r.MS[i] + m[q + 3] / r.tick;
			}
			msgs[c] = null;
		});
		r.msgs = null;
		/* each op's slack in time units, when the run has them: none makes it critical */
		if (r.slack) {
			r.SL = new Float64Array(n);
			i = 0;
			var sl = pieces(r, kr, "slack");
			sl.forEach(function (v, c) {
				v = piece(sl, c);
				for (var q = 0; q < v.length; q++, i++) r.SL[i] = v[q] / r.slackTick;
				sl[c] = null;
			});
			r.slack = null;
		}
		busySummary(r);
		memorySummary(r);
		wireSummary(r);
		totalSummary(r);
	}

	/* Per device its busy intervals (an op, or an overlapped pair as one) in time order, which
	 * never overlap, with prefix sums of the busy time before each by kind (a pair's time half
	 * to each of its kinds; their sum the busy time) and of the critical ones: a column's busy
	 * time, kinds and critical ops are then two binary searches away. With streams an op is
	 * busy for its compute alone, as the run counts it: the engine records how much of its
	 * span is not compute (r.IN: its exposed communication, slowed compute and waits), not
	 * where, so an interval computes at its rate (compute / span) all along; a prefix sums the
	 * spans (the columns' exposed communication is what they cover less what they compute).
	 * Each interval is one record of z.w numbers in z.Q (BS: start, BE: end, BK: the four
	 * kinds' prefixes, BC: the critical ones', BF: its flags, with streams BR: its rate, BV:
	 * the spans' prefix), a last record n holding the totals; z.I its op. Its flags: its kind
	 * (bits 0-1), its pair's second kind (2-3, its own kind when alone), 16 a pair, 32
	 * critical, 64 and 128 its first and second op on an odd chunk. */
	var BS = 0, BE = 1, BK = 2, BC = 6, BF = 7, BR = 8, BV = 9;
	function busySummary(r) {
		r.bz = [];
		var w = r.IN ? 10 : 8;
		for (var d = 0; d < r.p; d++) {
			var a = r.devStart[d], b = r.devStart[d + 1], n = 0, i, j = 0, k;
			for (i = a; i < b; i++) if (r.OV[i] !== 2) n++;
			var Q = new Float64Array((n + 1) * w), z = {n: n, w: w, Q: Q, I: new Uint32Array(n), R: w > 8};
			for (i = a; i < b; i++) {
				if (r.OV[i] === 2) continue;
				var pair = r.OV[i] === 1 && i + 1 < b && r.OV[i + 1] === 2, i2 = pair ? i + 1 : i;
				var e = pair ? Math.max(r.E[i], r.E[i + 1]) : r.E[i], span = e - r.S[i], dur = span;
				var o = j * w, q = o + w;
				Q[o + BS] = r.S[i]; Q[o + BE] = e; z.I[j] = i;
				if (z.R) {
					dur = Math.max(0, span - (pair ? r.IN[i] + r.IN[i + 1] : r.IN[i]));
					Q[o + BR] = span > 0 ? dur / span : 1;
					Q[q + BV] = Q[o + BV] + span;
				}
				for (k = 0; k < 4; k++) Q[q + BK + k] = Q[o + BK + k];
				if (pair) {
					Q[q + BK + r.K[i]] += dur / 2;
					Q[q + BK + r.K[i + 1]] += dur / 2;
				} else {
					Q[q + BK + r.K[i]] += dur;
				}
				var crit = r.SL ? r.SL[i] === 0 || (pair && r.SL[i + 1] === 0) : false;
				Q[q + BC] = Q[o + BC] + (crit ? 1 : 0);
				Q[o + BF] = r.K[i] | r.K[i2] << 2 | (pair ? 16 : 0) | (crit ? 32 : 0) |
					(r.chunkOf[r.ST[i]] % 2 ? 64 : 0) | (r.chunkOf[r.ST[i2]] % 2 ? 128 : 0);
				j++;
			}
			Q[n * w + BS] = Q[n * w + BE] = Infinity;
			z.X = index(Q, n, w, BE);
			r.bz.push(z);
		}
	}
	/* the record of z's first interval that ends after t */
	function busyFind(z, t) { return upperQ(z.Q, z.w, BE, 0, z.n, t); }
	/* busy time of z before t, j = busyFind(z, t) (or the same from the index) */
	function busyAt(z, j, t) {
		var Q = z.Q, o = j * z.w, c = Q[o + BK] + Q[o + BK + 1] + Q[o + BK + 2] + Q[o + BK + 3];
		return j >= z.n ? c : c + (z.R ? Q[o + BR] : 1) * Math.max(0, t - Q[o + BS]);
	}
	/* the time z's ops cover before t, compute or not */
	function coverAt(z, j, t) {
		if (!z.R) return busyAt(z, j, t);
		var Q = z.Q, o = j * z.w;
		return j >= z.n ? Q[o + BV] : Q[o + BV] + Math.max(0, t - Q[o + BS]);
	}
	/* all four kinds' busy time before t into out */
	function kindsAt(z, j, t, out) {
		var Q = z.Q, o = j * z.w;
		out[0] = Q[o + BK]; out[1] = Q[o + BK + 1]; out[2] = Q[o + BK + 2]; out[3] = Q[o + BK + 3];
		if (j < z.n && t > Q[o + BS]) {
			var f = Q[o + BF], part = (t - Q[o + BS]) * (z.R ? Q[o + BR] : 1);
			if (f & 16) {
				out[f & 3] += part / 2;
				out[f >> 2 & 3] += part / 2;
			} else {
				out[f & 3] += part;
			}
		}
	}

	/* Memory: an allocation at its op's start, a release at its op's end, at one time what
	 * leaves before what arrives (as the engine counts them); per device the level after each
	 * event, with its time in one record (m.Q: time, level), and the maxima of groups of 8
	 * of them, of 64, ... (m.G, a tree of 8 branches: a column's highest level reads a
	 * cache line or two at each end of it per level, O(log n)). With activation
	 * offload (r.copies: per copy its device, start and duration in time quanta and amount,
	 * out to host memory when positive, back when negative), as the engine counts them: a copy
	 * out holds host memory from its start and leaves the GPU at its end, a copy back takes GPU
	 * memory from its start and leaves host memory at its end; per device then also the levels
	 * in host memory (r.hostMem), and the lane's scale (r.memPeak) is the highest sum of a
	 * device's two peaks, so that the host's band fits over the GPU's. */
	function levels(ev) {
		var n = ev.length, Q = new Float64Array(2 * n), G = [], lvl = 0, top = 0, i;
		for (i = 0; i < n; i++) {
			lvl += ev[i][1];
			Q[2 * i] = ev[i][0]; Q[2 * i + 1] = lvl;
			if (lvl > top) top = lvl;
		}
		for (var below = null, m = n; m > 1;) {
			var up = new Float64Array((m + 7) >> 3);
			for (i = 0; i < m; i++) {
				var v = below ? below[i] : Q[2 * i + 1];
				if ((i & 7) === 0 || v > up[i >> 3]) up[i >> 3] = v;
			}
			G.push(up); below = up; m = up.length;
		}
		var m = {n: n, Q: Q, G: G, X: index(Q, n, 2, 0), peak: top};
		m.cells = n >= 256 ? cells(Q, n, 2, 0, 0, function (M, N, lo, cw) {
			/* a cell's highest level: as it starts, and after each event in it */
			for (var k = 0, i = 0, now = 0; k < N; k++) {
				var end = lo + (k + 1) * cw, v = now;
				for (; i < n && Q[2 * i] < end; i++) if ((now = Q[2 * i + 1]) > v) v = now;
				M[k] = v;
			}
		}, Math.max, Float64Array) : null;
		return m;
	}
	/* A summary over time of n records of A (w numbers each, sorted by their time at number
	 * o; ending at number e), for a view whose columns each cover many of them: the time
	 * from the first to the last end cut in 2^L cells (and one more), a cell about four
	 * records, fill(M, N, lo, cw) writing a number per cell (M an array of Type); then for
	 * each coarser level (cells twice as wide, of the same bounds: the powers of two keep
	 * lo + k cw exact) the join of two cells. A column reads the cells inside it (a handful, near each other in
	 * memory) and searches the records only for the parts at its ends that a cell covers in
	 * part, and then only when that cell could change what the column shows: at the whole
	 * view of a large run a column boundary's search is a read far from the last, a miss of
	 * the page tables as well as the cache, and most columns need none. */
	function cells(A, n, w, o, e, fill, join, Type) {
		var L = Math.floor(Math.log2(n / 4)), lo = A[o], hi = A[(n - 1) * w + e];
		if (!(hi > lo) || L < 4) return null;
		var N = (1 << L) + 1, cw = (hi - lo) / (1 << L), M = new Type(N), at = [M];
		fill(M, N, lo, cw);
		for (var d = 1; d <= L - 4; d++) {
			var B = at[d - 1], nb = B.length, C = new Type(((nb - 1) >> 1) + 1);
			for (var k = 0; k < C.length; k++) C[k] = 2 * k + 1 < nb ? join(B[2 * k], B[2 * k + 1]) : B[2 * k];
			at.push(C);
		}
		return {lo: lo, cw: cw, at: at};
	}
	/* the level of cells g for columns dt wide (cells at most an eighth of a column), or -1
	 * when a column holds too few records for a summary to pay */
	function cellLevel(g, dt) {
		if (!g || !(dt >= 8 * g.cw)) return -1;
		return Math.min(g.at.length - 1, Math.floor(Math.log2(dt / (8 * g.cw))));
	}
	/* the cells [KC[0], KC[1]) of level d of g wholly inside [ta, tb), the left part of the
	 * column in cell KC[0] - 1, the right in cell KC[1] (tb > ta) */
	var KC = new Float64Array(2);
	function cellsIn(g, d, ta, tb) {
		var lo = g.lo, cw = g.cw * (1 << d), a = Math.ceil((ta - lo) / cw), b = Math.floor((tb - lo) / cw);
		while (lo + (a - 1) * cw >= ta) a--;
		while (lo + a * cw < ta) a++;
		while (lo + b * cw > tb) b--;
		while (lo + (b + 1) * cw <= tb) b++;
		KC[0] = a; KC[1] = b;
		return cw;
	}
	/* the highest level of m in [ta, tb) from its cells at level d (d >= 0) */
	function memColumn(m, d, ta, tb) {
		var g = m.cells, M = g.at[d], N = M.length, cw = cellsIn(g, d, ta, tb), a = KC[0], b = KC[1];
		var last = m.Q[2 * m.n - 1], v = -Infinity, k, x;
		if (b < a) return memRange(m, ta, tb);
		for (k = a; k < b; k++) if ((x = k < 0 ? 0 : k >= N ? last : M[k]) > v) v = x;
		var xa = g.lo + a * cw, xb = g.lo + b * cw;
		if (xa > ta && (a - 1 < 0 ? 0 : a - 1 >= N ? last : M[a - 1]) > v) v = Math.max(v, memRange(m, ta, Math.min(xa, tb)));
		if (tb > xb && (b < 0 ? 0 : b >= N ? last : M[b]) > v) v = Math.max(v, memRange(m, Math.max(xb, ta), tb));
		return v;
	}
	/* whether a transfer of w is in [ta, tb), from its cells at level d (d >= 0) */
	function wireColumn(w, d, ta, tb) {
		var g = w.cells, M = g.at[d], N = M.length, cw = cellsIn(g, d, ta, tb), a = KC[0], b = KC[1], k;
		if (b < a) return wireRange(w, ta, tb);
		for (k = Math.max(a, 0); k < b && k < N; k++) if (M[k]) return true;
		var xa = g.lo + a * cw, xb = g.lo + b * cw;
		if (xa > ta && a - 1 >= 0 && a - 1 < N && M[a - 1] && wireRange(w, ta, Math.min(xa, tb))) return true;
		return tb > xb && b >= 0 && b < N && M[b] && wireRange(w, Math.max(xb, ta), tb);
	}
	function wireRange(w, ta, tb) {
		var j = upperAt(w.Q, w.X, w.n, 0, ta);
		return j < w.n && w.Q[2 * j] < tb;
	}
	/* the highest level of m in [ta, tb) from its events */
	function memRange(m, ta, tb) {
		var a = lowerAt(m.Q, m.X, m.n, 0, ta);
		return memMax(m, a, lowerAt(m.Q, m.X, m.n, a, tb));
	}
	function memorySummary(r) {
		r.mem = [];
		var peak = 0, cp = r.copies, host = [], d, i;
		for (d = 0; d < r.p; d++) host.push([]);
		for (var d0 = 0; d0 < r.p; d0++) {
			var ev = [];
			for (i = r.devStart[d0]; i < r.devStart[d0 + 1]; i++)
				if (r.A[i] !== 0) ev.push([r.A[i] > 0 ? r.S[i] : r.E[i], r.A[i]]);
			r.mem.push(ev);
		}
		if (cp) {
			for (i = 0; i + 3 < cp.length; i += 4) {
				var a = cp[i + 3], S = cp[i + 1] / r.tick, E = (cp[i + 1] + cp[i + 2]) / r.tick;
				d = cp[i];
				if (a > 0) { host[d].push([S, a]); r.mem[d].push([E, -a]); }
				else { r.mem[d].push([S, -a]); host[d].push([E, a]); }
			}
			r.copies = null;
			r.hostMem = [];
		}
		/* at one time what leaves goes before what arrives, as the engine counts a device's
		 * ops one after the other: a backward's end before the next forward's start */
		var order = function (a, b) { return a[0] - b[0] || a[1] - b[1]; };
		for (d = 0; d < r.p; d++) {
			r.mem[d].sort(order);
			r.mem[d] = levels(r.mem[d]);
			if (cp) {
				host[d].sort(order);
				r.hostMem.push(levels(host[d]));
				peak = Math.max(peak, r.mem[d].peak + r.hostMem[d].peak);
			} else {
				peak = Math.max(peak, r.mem[d].peak);
			}
		}
		r.memPeak = peak;
	}
	/* the level of m after its events up to time t */
	function levelAt(m, t) {
		var j = upperQ(m.Q, 2, 0, 0, m.n, t);
		return j > 0 ? m.Q[2 * j - 1] : 0;
	}
	/* an amount of activations as the page says it: GB with a model, else in its units */
	function amount(r, x) {
		return r.actBytes ? num(x * r.actBytes / 1e9) + " GB" : num(x) + " units";
	}
	/* the highest level of m in a column whose events are [a, b): the level before them
	 * and after each */
	function memMax(m, a, b) {
		var Q = m.Q, v = a > 0 ? Q[2 * a - 1] : 0, e, x;
		/* the events up to a group's start at each end, then the groups between, a level up */
		for (e = Math.min(b, (a + 7) & ~7); a < e; a++) if ((x = Q[2 * a + 1]) > v) v = x;
		for (e = Math.max(a, b & ~7); b > e;) if ((x = Q[2 * --b + 1]) > v) v = x;
		for (var L = 0; a < b; L++) {
			var G = m.G[L];
			a >>= 3; b >>= 3;
			for (e = Math.min(b, (a + 7) & ~7); a < e; a++) if ((x = G[a]) > v) v = x;
			for (e = Math.max(a, b & ~7); b > e;) if ((x = G[--b]) > v) v = x;
		}
		return v;
	}

	/* Per device the union of its outgoing transfers, as disjoint intervals in time order;
	 * and the messages in order of their start, for the arrows. */
	function wireSummary(r) {
		var per = [], d, i;
		for (d = 0; d < r.p; d++) per.push([]);
		for (i = 0; i < r.nmsgs; i++) per[r.dev[r.MF[i]]].push(i);
		r.wz = per.map(function (list) {
			list.sort(function (a, b) { return r.MS[a] - r.MS[b]; });
			var S = [], E = [];
			list.forEach(function (k) {
				if (S.length && r.MS[k] <= E[E.length - 1]) E[E.length - 1] = Math.max(E[E.length - 1], r.ME[k]);
				else { S.push(r.MS[k]); E.push(r.ME[k]); }
			});
			/* each as a record (start, end) */
			var w = {n: S.length, Q: new Float64Array(2 * S.length)};
			for (var q = 0; q < w.n; q++) { w.Q[2 * q] = S[q]; w.Q[2 * q + 1] = E[q]; }
			w.X = index(w.Q, w.n, 2, 1);
			/* per cell 1 when a transfer is in it */
			w.cells = w.n >= 256 ? cells(w.Q, w.n, 2, 0, 1, function (M, N, lo, cw) {
				for (var q = 0; q < w.n; q++) {
					var a = Math.max(0, Math.floor((w.Q[2 * q] - lo) / cw) - 1), e = w.Q[2 * q + 1];
					while (lo + (a + 1) * cw <= w.Q[2 * q]) a++;
					for (; a < N && lo + a * cw < e; a++) M[a] = 1;
				}
			}, Math.max, Uint8Array) : null;
			return w;
		});
		var reach = 0;
		for (i = 0; i < r.nmsgs; i++) reach = Math.max(reach, r.S[r.MT[i]] - r.MS[i]);
		r.msgReach = reach;
		/* the devices' lists merged (a heap of their heads), into typed arrays: a sort of all
		 * the messages at once took seconds at tens of millions, and an array of them kept in
		 * the script's heap slowed every garbage collection */
		var order = new Uint32Array(r.nmsgs), start = new Float64Array(r.nmsgs), at = new Uint32Array(r.p);
		var heap = [], before = function (a, b) {
			var x = r.MS[per[a][at[a]]], y = r.MS[per[b][at[b]]];
			return x < y || (x === y && per[a][at[a]] < per[b][at[b]]);
		};
		var sift = function (h) {
			for (;;) {
				var l = 2 * h + 1, m = h;
				if (l < heap.length && before(heap[l], heap[m])) m = l;
				if (l + 1 < heap.length && before(heap[l + 1], heap[m])) m = l + 1;
				if (m === h) return;
				var x = heap[h]; heap[h] = heap[m]; heap[m] = x; h = m;
			}
		};
		for (d = 0; d < r.p; d++) if (per[d].length) heap.push(d);
		for (i = (heap.length >> 1) - 1; i >= 0; i--) sift(i);
		for (i = 0; heap.length; i++) {
			var top = heap[0], k = per[top][at[top]++];
			order[i] = k; start[i] = r.MS[k];
			if (at[top] === per[top].length) { heap[0] = heap[heap.length - 1]; heap.pop(); }
			sift(0);
		}
		r.msgOrder = order;
		r.msgStart = start;
	}

	/* The run's busy devices over time as a piecewise linear prefix: records (r.tot.Q) of a
	 * time, the busy time of all devices before it and the number busy after it. */
	function totalSummary(r) {
		var n = 0, d, j;
		r.bz.forEach(function (z) { n += z.n; });
		var ss = new Float64Array(n), ee = new Float64Array(n), at = 0;
		r.bz.forEach(function (z) {
			for (var q = 0; q < z.n; q++, at++) { ss[at] = z.Q[q * z.w + BS]; ee[at] = z.Q[q * z.w + BE]; }
		});
		var TQ = new Float64Array(6 * n);
		var i = 0, busy = 0, area = 0, last = 0, t;
		if (r.IN) {
			/* with streams an interval adds its rate of compute (busySummary) from its start
			 * to its end: the events sorted with their rates */
			var rate = new Float64Array(n), ord = new Uint32Array(2 * n);
			at = 0;
			r.bz.forEach(function (z) { for (var q = 0; q < z.n; q++) rate[at++] = z.Q[q * z.w + BR]; });
			for (i = 0; i < 2 * n; i++) ord[i] = i;
			var when = function (k) { return k < n ? ss[k] : ee[k - n]; };
			ord.sort(function (a, b) { return when(a) - when(b); });
			last = n ? when(ord[0]) : 0;
			for (d = 0; d < 2 * n; d++) {
				var k = ord[d];
				t = when(k);
				area += busy * (t - last); last = t;
				busy += k < n ? rate[k] : -rate[k - n];
				TQ[3 * d] = t; TQ[3 * d + 1] = area; TQ[3 * d + 2] = busy;
			}
			r.tot = {n: 2 * n, Q: TQ, X: index(TQ, 2 * n, 3, 0)};
			return;
		}
		ss.sort(); ee.sort();
		last = n ? Math.min(ss[0], ee[0]) : 0;
		for (j = 0, d = 0; i < n || j < n; d++) {
			var start = j >= n || (i < n && ss[i] <= ee[j]);
			t = start ? ss[i++] : ee[j++];
			area += busy * (t - last); last = t;
			busy += start ? 1 : -1;
			TQ[3 * d] = t; TQ[3 * d + 1] = area; TQ[3 * d + 2] = busy;
		}
		r.tot = {n: 2 * n, Q: TQ, X: index(TQ, 2 * n, 3, 0)};
	}
	function totalAt(g, t) {
		var k = 3 * (upperQ(g.Q, 3, 0, 0, g.n, t) - 1);
		return k < 0 ? 0 : g.Q[k + 1] + g.Q[k + 2] * (t - g.Q[k]);
	}

