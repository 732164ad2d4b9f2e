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
 * of an index of the sorted times (index()) and a few entries in it, so it costs the pixels
 * times a few memory reads whatever the run's size.
 *
 * Input: the wheel scrolls the page, Ctrl+wheel or a pinch zooms at the pointer, a horizontal
 * wheel or a drag pans; W/S zoom, A/D pan (as Perfetto), +/- zoom, 0 or a double click fits;
 * on the focused timeline the arrow keys move a selected op (left/right on its device, up/down
 * to the device above/below), Home/End go to a device's first/last op, F zooms to it, and its
 * details go to a live region for screen readers. window.ppsimView is the page's interface for
 * scripts and tests. */
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

	/* First index in [a, b) of sorted A whose value is above t. */
	function upper(A, a, b, t) {
		while (a < b) {
			var h = (a + b) >>> 1;
			if (A[h] <= t) a = h + 1; else b = h;
		}
		return a;
	}
	/* An index of sorted A[0, n): the first entry at least lo + k (hi - lo) / nb for k = 0 to
	 * nb, nb about n, so that a search looks at the entries of a few buckets (about as many as
	 * ops end in them), near each other in memory: a frame's search at a column boundary
	 * costs a few reads however many ops a column holds. */
	function index(A, n) {
		var lo = n ? A[0] : 0, hi = n ? A[n - 1] : 1, nb = Math.max(1, n), i = 0;
		if (!(hi > lo)) hi = lo + 1;
		var X = {lo: lo, step: (hi - lo) / nb, nb: nb, at: new Uint32Array(nb + 1)};
		for (var k = 0; k <= nb; k++) {
			var x = lo + k * X.step;
			while (i < n && A[i] < x) i++;
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
	function upperAt(A, X, n, a, t) { near(X, n, a, t); return upper(A, span2[0], span2[1], t); }
	function lowerAt(A, X, n, a, t) { near(X, n, a, t); return lower(A, span2[0], span2[1], t); }
	/* First index in [a, b) of sorted A whose value is at least t. */
	function lower(A, a, b, t) {
		while (a < b) {
			var h = (a + b) >>> 1;
			if (A[h] < t) a = h + 1; else b = h;
		}
		return a;
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
	 * never overlap, with prefix sums of the busy time before each, of it by kind (a pair's
	 * time half to each of its kinds) and of the critical ones: a column's busy time, kinds and
	 * critical ops are then two binary searches away. With streams an op is busy for its
	 * compute alone, as the run counts it: the engine records how much of its span is not
	 * compute (r.IN: its exposed communication, slowed compute and waits), not where, so an
	 * interval computes at its rate R (compute / span) all along; V sums the spans (the
	 * columns' exposed communication is what they cover less what they compute). */
	function busySummary(r) {
		r.bz = [];
		for (var d = 0; d < r.p; d++) {
			var a = r.devStart[d], b = r.devStart[d + 1], n = 0, i, j = 0, k;
			for (i = a; i < b; i++) if (r.OV[i] !== 2) n++;
			var z = {n: n, S: new Float64Array(n), E: new Float64Array(n), I: new Uint32Array(n),
				C: new Float64Array(n + 1), KC: new Float64Array(4 * (n + 1)), CC: new Uint32Array(n + 1),
				R: r.IN ? new Float64Array(n) : null, V: r.IN ? new Float64Array(n + 1) : null};
			for (i = a; i < b; i++) {
				if (r.OV[i] === 2) continue;
				var pair = r.OV[i] === 1 && i + 1 < b && r.OV[i + 1] === 2;
				var e = pair ? Math.max(r.E[i], r.E[i + 1]) : r.E[i], span = e - r.S[i], dur = span;
				z.S[j] = r.S[i]; z.E[j] = e; z.I[j] = i;
				if (z.R) {
					dur = Math.max(0, span - (pair ? r.IN[i] + r.IN[i + 1] : r.IN[i]));
					z.R[j] = span > 0 ? dur / span : 1;
					z.V[j + 1] = z.V[j] + span;
				}
				z.C[j + 1] = z.C[j] + dur;
				for (k = 0; k < 4; k++) z.KC[4 * j + 4 + k] = z.KC[4 * j + k];
				if (pair) {
					z.KC[4 * j + 4 + r.K[i]] += dur / 2;
					z.KC[4 * j + 4 + r.K[i + 1]] += dur / 2;
				} else {
					z.KC[4 * j + 4 + r.K[i]] += dur;
				}
				var crit = r.SL ? r.SL[i] === 0 || (pair && r.SL[i + 1] === 0) : false;
				z.CC[j + 1] = z.CC[j] + (crit ? 1 : 0);
				j++;
			}
			z.X = index(z.E, n);
			r.bz.push(z);
		}
	}
	/* busy time of z before t, j = upper(z.E, ., ., t) */
	function busyAt(z, j, t) {
		return j >= z.n ? z.C[z.n] : z.C[j] + (z.R ? z.R[j] : 1) * Math.max(0, t - z.S[j]);
	}
	/* the time z's ops cover before t, compute or not */
	function coverAt(z, j, t) {
		if (!z.V) return busyAt(z, j, t);
		return j >= z.n ? z.V[z.n] : z.V[j] + Math.max(0, t - z.S[j]);
	}
	/* all four kinds' busy time before t into out */
	function kindsAt(r, z, j, t, out) {
		for (var k = 0; k < 4; k++) out[k] = z.KC[4 * j + k];
		if (j < z.n && t > z.S[j]) {
			var i = z.I[j], part = (t - z.S[j]) * (z.R ? z.R[j] : 1);
			if (r.OV[i] === 1 && i + 1 < r.nops && r.OV[i + 1] === 2) {
				out[r.K[i]] += part / 2;
				out[r.K[i + 1]] += part / 2;
			} else {
				out[r.K[i]] += part;
			}
		}
	}

	/* Memory: an allocation at its op's start, a release at its op's end, at one time what
	 * leaves before what arrives (as the engine counts them); per device the level after each
	 * event and a tree of their maxima (a column's highest level in O(log n)). With activation
	 * offload (r.copies: per copy its device, start and duration in time quanta and amount,
	 * out to host memory when positive, back when negative), as the engine counts them: a copy
	 * out holds host memory from its start and leaves the GPU at its end, a copy back takes GPU
	 * memory from its start and leaves host memory at its end; per device then also the levels
	 * in host memory (r.hostMem), and the lane's scale (r.memPeak) is the highest sum of a
	 * device's two peaks, so that the host's band fits over the GPU's. */
	function levels(ev) {
		var n = ev.length, T = new Float64Array(n), tree = new Float64Array(2 * n), lvl = 0, top = 0, i;
		for (i = 0; i < n; i++) {
			lvl += ev[i][1];
			T[i] = ev[i][0]; tree[n + i] = lvl;
			if (lvl > top) top = lvl;
		}
		for (i = n - 1; i > 0; i--) tree[i] = Math.max(tree[2 * i], tree[2 * i + 1]);
		return {n: n, T: T, tree: tree, X: index(T, n), peak: top};
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
		var j = upper(m.T, 0, m.n, t);
		return j > 0 ? m.tree[m.n + j - 1] : 0;
	}
	/* an amount of activations as the page says it: GB with a model, else in its units */
	function amount(r, x) {
		return r.actBytes ? num(x * r.actBytes / 1e9) + " GB" : num(x) + " units";
	}
	function memMax(m, a, b) {
		var v = a > 0 ? m.tree[m.n + a - 1] : 0, n = m.n;
		for (a += n, b += n; a < b; a >>= 1, b >>= 1) {
			if (a & 1) v = Math.max(v, m.tree[a++]);
			if (b & 1) v = Math.max(v, m.tree[--b]);
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
			var w = {n: S.length, S: Float64Array.from(S), E: Float64Array.from(E)};
			w.X = index(w.E, w.n);
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

	/* The run's busy devices over time as a piecewise linear prefix: at TT[k] the busy time
	 * of all devices before it (CA) and the number busy after it (NB). */
	function totalSummary(r) {
		var n = 0, d, j;
		r.bz.forEach(function (z) { n += z.n; });
		var ss = new Float64Array(n), ee = new Float64Array(n), at = 0;
		r.bz.forEach(function (z) { ss.set(z.S, at); ee.set(z.E, at); at += z.n; });
		var TT = new Float64Array(2 * n), CA = new Float64Array(2 * n), NB = new Float64Array(2 * n);
		var i = 0, busy = 0, area = 0, last = 0, t;
		if (r.IN) {
			/* with streams an interval adds its rate of compute (busySummary) from its start
			 * to its end: the events sorted with their rates */
			var rate = new Float64Array(n), ord = new Uint32Array(2 * n);
			at = 0;
			r.bz.forEach(function (z) { rate.set(z.R, at); at += z.n; });
			for (i = 0; i < 2 * n; i++) ord[i] = i;
			var when = function (k) { return k < n ? ss[k] : ee[k - n]; };
			ord.sort(function (a, b) { return when(a) - when(b); });
			last = n ? when(ord[0]) : 0;
			for (d = 0; d < 2 * n; d++) {
				var k = ord[d];
				t = when(k);
				area += busy * (t - last); last = t;
				busy += k < n ? rate[k] : -rate[k - n];
				TT[d] = t; CA[d] = area; NB[d] = busy;
			}
			r.tot = {n: 2 * n, TT: TT, CA: CA, NB: NB, X: index(TT, 2 * n)};
			return;
		}
		ss.sort(); ee.sort();
		last = n ? Math.min(ss[0], ee[0]) : 0;
		for (j = 0, d = 0; i < n || j < n; d++) {
			var start = j >= n || (i < n && ss[i] <= ee[j]);
			t = start ? ss[i++] : ee[j++];
			area += busy * (t - last); last = t;
			busy += start ? 1 : -1;
			TT[d] = t; CA[d] = area; NB[d] = busy;
		}
		r.tot = {n: 2 * n, TT: TT, CA: CA, NB: NB, X: index(TT, 2 * n)};
	}
	function totalAt(g, t) {
		var k = upper(g.TT, 0, g.n, t) - 1;
		return k < 0 ? 0 : g.CA[k] + g.NB[k] * (t - g.TT[k]);
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
	runs.forEach(function (r, k) {
		decode(r, k);
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

	/* Layout, in CSS pixels from the top of the timeline: per run its title, then per device
	 * a row: the strip of critical marks and the selection's caret, the lane of ops, its
	 * streams (with them), its transfers, its memory; then its requests (serving). */
	var contentH = 4;
	runs.forEach(function (r) {
		r.top = contentH;
		r.streamH = r.streams ? STREAM : 0;
		r.row = CRITH + LANE + r.streamH + WIRE + MEM + GAP;
		r.height = TITLE + r.p * r.row + reqHeight(r) + GAP;
		contentH += r.height;
	});
	function laneTop(r, d) { return r.top + TITLE + d * r.row + CRITH; }

	var canvas = el("timeline"), ctx = canvas.getContext("2d"), tip = el("tip"), space = el("space");
	var strip = el("strip"), sctx = strip.getContext("2d");
	var view = {t0: lo, t1: hi}, stats = {drawn: 0, aggregated: 0, arrows: 0, frames: 0, ms: 0};
	var width = 0, ch = 0, off = 0, dpr = 1, image = null, pix = null, W = 0, H = 0;
	var stripImage = null, stripPix = null;
	var stripH = runs.length * BUBBLE + AXIS, footH = stripH;
	var sel = null; /* the selected op: {k: run, i: op} */
	space.style.height = contentH + "px";

	function plotW() { return width - LEFT - RIGHT; }
	function X(t) { return LEFT + (t - view.t0) * plotW() / (view.t1 - view.t0); }
	function T(x) { return view.t0 + (x - LEFT) * (view.t1 - view.t0) / plotW(); }

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
	function fillOf(r, i) { return (r.chunkOf[r.ST[i]] % 2 ? LIGHT : COLOR)[r.K[i]]; }
	function isPairFirst(r, i) { return r.OV[i] === 1 && i + 1 < r.nops && r.OV[i + 1] === 2; }

	/* Sizes the canvas to the window (its backing store only when that changes); reads the
	 * layout only after a resize, so that a frame forces none. */
	var measured = false, spaceTop = 0;
	function size() {
		if (measured) return;
		measured = true;
		strip.style.height = stripH + "px"; /* before the footer is measured */
		footH = el("foot").offsetHeight || stripH;
		var w = Math.max(LEFT + RIGHT + 50, space.clientWidth || 1000);
		var h = Math.max(1, Math.min(contentH, Math.max(160, window.innerHeight - footH)));
		var s = window.devicePixelRatio || 1;
		spaceTop = space.getBoundingClientRect().top + window.scrollY;
		if (w !== width || h !== ch || s !== dpr) {
			width = w; ch = h; dpr = s;
			canvas.style.width = w + "px"; canvas.style.height = h + "px";
			canvas.width = W = Math.round(w * s); canvas.height = H = Math.round(h * s);
			image = ctx.createImageData(W, H);
			pix = new Uint32Array(image.data.buffer);
			strip.style.width = w + "px"; strip.style.height = stripH + "px";
			strip.width = W; strip.height = Math.round(stripH * s);
		}
	}

	/* the time at each device-pixel column boundary of the plot, for this frame */
	var colT = new Float64Array(0), cx0 = 0, cx1 = 0;
	function columns() {
		cx0 = Math.round(LEFT * dpr); cx1 = Math.round((width - RIGHT) * dpr);
		if (colT.length < cx1 - cx0 + 1) colT = new Float64Array(cx1 - cx0 + 1);
		var scale = (view.t1 - view.t0) / (cx1 - cx0);
		for (var c = cx0; c <= cx1; c++) colT[c - cx0] = view.t0 + (c - cx0) * scale;
	}

	/* fills rows [y0, y1) of column c (device pixels, clipped to the canvas) with colour v */
	function column(c, y0, y1, v) {
		if (y0 < 0) y0 = 0;
		if (y1 > H) y1 = H;
		for (var y = y0, at = y0 * W + c; y < y1; y++, at += W) pix[at] = v;
	}
	function rect(x0, x1, y0, y1, v) {
		if (y0 < 0) y0 = 0;
		if (y1 > H) y1 = H;
		for (var y = y0; y < y1; y++) pix.fill(v, y * W + x0, y * W + x1);
	}
	function dev(y) { return Math.round((y - off) * dpr); }

	var KINDS = new Float64Array(4), KA = new Float64Array(4), KB = new Float64Array(4);
	/* The lane of device d of run r: each column as high as it is busy, error carried on; with
	 * streams, over it as high as its ops cover it, hatched (exposed communication). */
	function drawLane(r, d) {
		var z = r.bz[d], yt = laneTop(r, d), y0 = dev(yt), y1 = dev(yt + LANE), h = y1 - y0;
		var cy0 = dev(yt - CRITH), cy1 = cy0 + Math.max(1, Math.round(2 * dpr));
		var ncol = cx1 - cx0, carry = 0, kinds = KINDS, wideEdge = 4 * dpr, kaT = NaN;
		rect(cx0, cx1, y0, y1, PX.idle);
		var ta = colT[0], j = upperAt(z.E, z.X, z.n, 0, ta), ca = busyAt(z, j, ta), n = z.n;
		var va = z.V ? coverAt(z, j, ta) : 0, carryV = 0;
		for (var c = 0; c < ncol; c++) {
			var tb = colT[c + 1];
			if (j >= n || z.S[j] >= tb) {
				/* nothing in the column (the quick case of idle time) */
				ta = tb;
				continue;
			}
			var jb = upperAt(z.E, z.X, n, j, tb), cb = busyAt(z, jb, tb);
			var f = (cb - ca) / (tb - ta);
			f = f < 0 ? 0 : f > 1 ? 1 : f;
			var last = jb < n && z.S[jb] < tb ? jb : jb - 1, count = last - j + 1;
			var want = f * h, px = Math.round(want + carry);
			px = Math.max(Math.floor(want), Math.min(Math.ceil(want), px));
			carry += want - px;
			var x = cx0 + c;
			if (z.V) {
				/* the ops' cover of the column, its part over the busy pixels hatched */
				var vb = coverAt(z, jb, tb), g = (vb - va) / (tb - ta);
				g = g < 0 ? 0 : g > 1 ? 1 : g;
				var wantV = g * h, pv = Math.round(wantV + carryV);
				pv = Math.max(Math.floor(wantV), Math.min(Math.ceil(wantV), pv));
				carryV += wantV - pv;
				va = vb;
				for (var yy0 = Math.max(0, y1 - pv), at0 = yy0 * W + x; yy0 < y1 - px && yy0 < H; yy0++, at0 += W)
					pix[at0] = (x + yy0) & 2 ? PX.inner : PX.innerBg;
			}
			if (px > 0) {
				if (count === 1) {
					var i = z.I[j], edge = z.E[j] <= tb && z.E[j] > ta && (z.E[j] - z.S[j]) * dpr >= wideEdge * (tb - ta);
					var odd = r.chunkOf[r.ST[i]] % 2;
					var v = (edge ? (odd ? PX.lightEdge : PX.darkEdge) : (odd ? PX.light : PX.dark))[r.K[i]];
					if (isPairFirst(r, i)) {
						/* the pair's second op in the lower half, the first above it */
						var i2 = i + 1, odd2 = r.chunkOf[r.ST[i2]] % 2, half = Math.round(h / 2);
						var v2 = (edge ? (odd2 ? PX.lightEdge : PX.darkEdge) : (odd2 ? PX.light : PX.dark))[r.K[i2]];
						column(x, y1 - Math.min(px, half), y1, v2);
						if (px > half) column(x, y1 - px, y1 - half, v);
					} else {
						column(x, y1 - px, y1, v);
					}
				} else {
					/* merged: the kinds stacked by the share of the column they cover */
					var sum = 0, k, yy = y1, acc = 0;
					/* the kinds before the column's start, kept from the last column */
					if (kaT !== ta) kindsAt(r, z, j, ta, KA);
					kindsAt(r, z, jb, tb, KB);
					for (k = 0; k < 4; k++) {
						kinds[k] = KB[k] - KA[k];
						if (kinds[k] < 0) kinds[k] = 0;
						sum += kinds[k];
					}
					var swap = KA; KA = KB; KB = swap; kaT = tb;
					for (k = 0; k < 4 && sum > 0; k++) {
						if (kinds[k] === 0) continue;
						acc += kinds[k];
						var top = y1 - Math.round(px * acc / sum);
						if (top < yy) column(x, top, yy, PX.dark[k]);
						yy = Math.min(yy, top);
					}
				}
			}
			if (r.SL && z.CC[last + 1] > z.CC[j]) column(x, cy0, cy1, PX.crit);
			j = jb; ta = tb; ca = cb;
		}
	}

	/* transfers (a column with any) and memory (its highest level) under the lane */
	function drawUnder(r, d) {
		var yt = laneTop(r, d) + LANE + r.streamH, ncol = cx1 - cx0, c;
		var wy0 = dev(yt + 1), wy1 = dev(yt + WIRE - 1);
		var w = r.wz[d], j = upperAt(w.E, w.X, w.n, 0, colT[0]);
		for (c = 0; c < ncol && j < w.n; c++) {
			var tb = colT[c + 1];
			if (w.S[j] < tb) column(cx0 + c, wy0, wy1, PX.wire);
			j = upperAt(w.E, w.X, w.n, j, tb);
		}
		if (!(r.memPeak > 0)) return;
		var my0 = dev(yt + WIRE), my1 = dev(yt + WIRE + MEM - 2), mh = my1 - my0 - Math.round(dpr);
		rect(cx0, cx1, my0, my1, PX.memBack);
		var m = r.mem[d], a = lowerAt(m.T, m.X, m.n, 0, colT[0]);
		var h = r.hostMem ? r.hostMem[d] : null, ha = h ? lowerAt(h.T, h.X, h.n, 0, colT[0]) : 0;
		for (c = 0; c < ncol; c++) {
			var b = lowerAt(m.T, m.X, m.n, a, colT[c + 1]), lvl = memMax(m, a, b);
			var hgt = Math.round(mh * lvl / r.memPeak);
			if (hgt > 0) column(cx0 + c, my1 - hgt, my1, PX.mem);
			a = b;
			if (!h) continue;
			/* the host's highest level in the column, a band over the GPU's (a pixel apart) */
			var hb = lowerAt(h.T, h.X, h.n, ha, colT[c + 1]), up = Math.round(mh * memMax(h, ha, hb) / r.memPeak);
			var base = my1 - hgt - (hgt > 0 ? Math.round(dpr) : 0);
			if (up > 0) column(cx0 + c, Math.max(my0, base - up), base, PX.host);
			ha = hb;
		}
	}

	/* what is drawn on top of the pixels: per op in a lane that holds few, its label, its
	 * outline when critical; the selection; the streams; the arrows; the requests */
	function drawOpDetails(r, d) {
		var z = r.bz[d], yt = laneTop(r, d), j0 = upper(z.E, 0, z.n, view.t0), j1 = lower(z.S, j0, z.n, view.t1);
		if (j1 - j0 > plotW() / 3) {
			stats.aggregated += j1 - j0;
			return;
		}
		for (var j = j0; j < j1; j++) {
			var i = z.I[j], pair = isPairFirst(r, i), clipped = z.R && z.R[j] < 1 && busyClip(r, d, j);
			for (var h = 0; h < (pair ? 2 : 1); h++, i++) {
				var x0 = Math.max(LEFT, X(r.S[i])), x1 = Math.min(width - RIGHT, X(r.E[i]));
				var yy = yt + (h ? LANE / 2 : 0), hh = pair ? LANE / 2 : LANE;
				if (x1 - x0 < 1.5) { stats.aggregated++; continue; }
				stats.drawn++;
				if (r.SL && r.SL[i] === 0) outline(x0, x1, yy, hh, CRIT);
				var s = label(r, i);
				if (!pair && x1 - x0 >= 6.5 * s.length + 6) {
					ctx.fillStyle = labelOn(fillOf(r, i));
					ctx.fillText(s, (x0 + x1) / 2, yt + 13);
				}
			}
			if (clipped) ctx.restore();
		}
	}
	/* With streams, clips what is drawn over interval j of device d (its outlines and labels)
	 * to the rows every column of it holds busy (each at least its rate of the lane's
	 * height, rounded down), so that they never paint over its hatched part; true when it
	 * did (ctx saved). */
	function busyClip(r, d, j) {
		var z = r.bz[d], yt = laneTop(r, d), y1 = dev(yt + LANE), top = y1 - Math.floor(z.R[j] * (y1 - dev(yt)));
		ctx.save();
		ctx.beginPath();
		ctx.rect(LEFT, top / dpr + off, plotW(), (y1 - top) / dpr);
		ctx.clip();
		return true;
	}

	function drawSelection() {
		if (!sel) return;
		var r = runs[sel.k], i = sel.i, d = r.dev[i], yt = laneTop(r, d);
		if (r.E[i] < view.t0 || r.S[i] > view.t1) return;
		var x0 = Math.max(LEFT, X(r.S[i])), x1 = Math.min(width - RIGHT, X(r.E[i])), xm = (x0 + x1) / 2;
		var yy = yt + (r.OV[i] === 2 ? LANE / 2 : 0), hh = r.OV[i] ? LANE / 2 : LANE;
		ctx.fillStyle = SEL_C;
		ctx.beginPath();
		ctx.moveTo(xm - 5, yt - CRITH); ctx.lineTo(xm + 5, yt - CRITH); ctx.lineTo(xm, yt - 1); ctx.fill();
		var z = r.bz[d], j = upper(z.E, 0, z.n, r.S[r.OV[i] === 2 ? i - 1 : i]);
		var clipped = z.R && j < z.n && z.R[j] < 1 && busyClip(r, d, j);
		outline(x0, x1, yy, hh, SEL_C);
		if (clipped) ctx.restore();
	}

	/* a 2-pixel outline inside the whole pixel columns of [x0, x1), so that it only ever
	 * paints over the op (the lane's busy pixels stay what they are) */
	function outline(x0, x1, y, h, colour) {
		var a = Math.ceil(x0 * dpr) / dpr, b = Math.floor(x1 * dpr) / dpr;
		if (b - a < 5) return;
		ctx.strokeStyle = colour; ctx.lineWidth = 2;
		ctx.strokeRect(a + 1, y + 1, b - a - 2, h - 2);
	}

	/* Each device's communication streams as thin bars under its lane, one height per stream,
	 * and its exposed time past its last op as a band there. */
	function drawStreams(r, d) {
		if (!r.streams) return;
		var v = r.streams[d], y = laneTop(r, d) + LANE, sp = v.spans;
		if (v.end > v.last) {
			ctx.fillStyle = EXPOSED_C;
			ctx.fillRect(X(v.last), y + 6, Math.max(1, X(v.end) - X(v.last)), 2);
		}
		for (var i = 0; i < sp.length; i += 3) {
			if (sp[i + 2] < view.t0 || sp[i + 1] > view.t1) continue;
			ctx.fillStyle = SCOLOR[sp[i] % SCOLOR.length];
			var x0 = X(sp[i + 1]), x1 = X(sp[i + 2]);
			ctx.fillRect(x0, y + 2 * (sp[i] % 3), Math.max(1, x1 - x0), 2);
		}
	}

	/* An arrow from each transfer in view to its consumer, while at most ARROWS are in view;
	 * drawn outside the lanes, so that they never change what a lane shows. */
	function drawArrows(r, d0, d1) {
		if (!el("arrows").checked || r.nmsgs === 0) return;
		var a = lower(r.msgStart, 0, r.nmsgs, view.t0 - r.msgReach), b = lower(r.msgStart, a, r.nmsgs, view.t1);
		if (b - a > 20000) return;
		var list = [];
		for (var q = a; q < b; q++) {
			var k = r.msgOrder[q], da = r.dev[r.MF[k]], db = r.dev[r.MT[k]];
			if (r.S[r.MT[k]] < view.t0) continue;
			if (Math.max(da, db) < d0 || Math.min(da, db) >= d1) continue;
			list.push(k);
		}
		if (list.length > ARROWS) return;
		/* clipped on the device pixels of the lanes, as the image has them */
		ctx.save();
		ctx.setTransform(1, 0, 0, 1, 0, 0);
		ctx.beginPath();
		ctx.rect(cx0, 0, cx1 - cx0, H);
		for (var d = d0; d < d1; d++) {
			var y0 = dev(laneTop(r, d));
			ctx.rect(cx0, y0, cx1 - cx0, dev(laneTop(r, d) + LANE) - y0);
		}
		ctx.clip("evenodd");
		ctx.setTransform(dpr, 0, 0, dpr, 0, -off * dpr);
		/* one path for the lines and one for the heads */
		ctx.strokeStyle = "rgba(60,60,60,0.55)";
		ctx.fillStyle = "rgba(60,60,60,0.8)";
		ctx.lineWidth = 1;
		var heads = new Path2D();
		ctx.beginPath();
		list.forEach(function (k) {
			var da = r.dev[r.MF[k]], db = r.dev[r.MT[k]];
			var ya = laneTop(r, da) + LANE + r.streamH + WIRE / 2;
			var yb = db > da ? laneTop(r, db) : laneTop(r, db) + LANE;
			var xa = X(r.MS[k]), xb = X(r.S[r.MT[k]]);
			ctx.moveTo(xa, ya); ctx.lineTo(xb, yb);
			var ang = Math.atan2(yb - ya, xb - xa);
			heads.moveTo(xb, yb);
			heads.lineTo(xb - 6 * Math.cos(ang - 0.4), yb - 6 * Math.sin(ang - 0.4));
			heads.lineTo(xb - 6 * Math.cos(ang + 0.4), yb - 6 * Math.sin(ang + 0.4));
			heads.closePath();
			stats.arrows++;
		});
		ctx.stroke();
		ctx.fill(heads);
		ctx.restore();
	}

	/* Each request as a bar in its lane: waiting, prefill to its first token, decode to its
	 * end. */
	function drawRequests(r) {
		if (!r.req) return;
		var g = r.req, y0 = r.top + TITLE + r.p * r.row + 16;
		if (y0 > off + ch || y0 + r.reqLanes * RH < off) return;
		for (var k = 0; k < g.n; k++) {
			if (g.E[k] < view.t0 || g.A[k] > view.t1) continue;
			var y = y0 + g.lane[k] * RH;
			var xa = X(g.A[k]), xm = X(g.M[k]), xf = X(g.F[k]), xe = X(g.E[k]);
			ctx.fillStyle = REQ_C[0]; ctx.fillRect(xa, y, Math.max(0.5, xm - xa), RH - 1);
			ctx.fillStyle = REQ_C[1]; ctx.fillRect(xm, y, Math.max(0.5, xf - xm), RH - 1);
			ctx.fillStyle = REQ_C[2]; ctx.fillRect(xf, y, Math.max(0.5, xe - xf), RH - 1);
		}
		ctx.fillStyle = "#222"; ctx.textAlign = "right"; ctx.font = "10px sans-serif";
		ctx.fillText(g.n + " requests", LEFT - 6, y0 + 8);
	}

	/* The footer: per run the share of its devices idle in each pixel column (the mean in view
	 * at its left), then the time axis. */
	function drawFooter() {
		var s = dpr, ncol = cx1 - cx0;
		sctx.setTransform(1, 0, 0, 1, 0, 0);
		sctx.fillStyle = BACK; sctx.fillRect(0, 0, strip.width, strip.height);
		/* the bubble strips' pixels in one image, put at once */
		var SH = Math.round(runs.length * BUBBLE * s);
		if (!stripImage || stripImage.width !== W || stripImage.height !== SH) {
			stripImage = sctx.createImageData(W, Math.max(1, SH));
			stripPix = new Uint32Array(stripImage.data.buffer);
		}
		stripPix.fill(PX.back);
		runs.forEach(function (r, k) {
			var y = k * BUBBLE, hgt = BUBBLE - 6, rs = r.origin / r.tick, re = rs + r.makespan;
			var top = Math.round((y + 2) * s), hpx = Math.round(hgt * s), g = r.tot, q = 0, row, c;
			for (row = top; row < top + hpx; row++) stripPix.fill(PX.memBack, row * W + cx0, row * W + cx1);
			/* the busy time of all devices before t, t never less than the last asked */
			var at = function (t) {
				q = upperAt(g.TT, g.X, g.n, q, t);
				return q > 0 ? g.CA[q - 1] + g.NB[q - 1] * (t - g.TT[q - 1]) : 0;
			};
			var carry = 0, lastT = NaN, lastV = 0;
			for (c = 0; c < ncol; c++) {
				var ta = Math.max(colT[c], rs), tb = Math.min(colT[c + 1], re);
				if (tb <= ta) continue;
				var va = ta === lastT ? lastV : at(ta), vb = at(tb);
				lastT = tb; lastV = vb;
				var idle = 1 - (vb - va) / (r.p * (tb - ta));
				idle = idle < 0 ? 0 : idle > 1 ? 1 : idle;
				var want = idle * hpx, px = Math.round(want + carry);
				px = Math.max(Math.floor(want), Math.min(Math.ceil(want), px));
				carry += want - px;
				for (row = top; row < top + px; row++) stripPix[row * W + cx0 + c] = PX.bubble;
			}
		});
		sctx.putImageData(stripImage, 0, 0);
		runs.forEach(function (r, k) {
			var y = k * BUBBLE, rs = r.origin / r.tick, re = rs + r.makespan;
			var ts = Math.max(view.t0, rs), te = Math.min(view.t1, re);
			r.viewBubble = te > ts ? 1 - (totalAt(r.tot, te) - totalAt(r.tot, ts)) / (r.p * (te - ts)) : 0;
			sctx.setTransform(s, 0, 0, s, 0, 0);
			sctx.fillStyle = "#222"; sctx.font = "10px sans-serif"; sctx.textAlign = "right";
			sctx.fillText((runs.length > 1 ? (r.label !== "-" ? r.label : r.schedule) + " " : "") +
				"bubble " + (100 * r.viewBubble).toFixed(1) + "%", LEFT - 6, y + 14);
			sctx.setTransform(1, 0, 0, 1, 0, 0);
		});
		sctx.setTransform(s, 0, 0, s, 0, 0);
		var y = runs.length * BUBBLE + 2, span = view.t1 - view.t0;
		var step = niceStep(span / Math.max(2, (width - LEFT) / 110));
		sctx.strokeStyle = "#333"; sctx.fillStyle = "#222"; sctx.lineWidth = 1;
		sctx.beginPath(); sctx.moveTo(LEFT, y + 0.5); sctx.lineTo(width - RIGHT, y + 0.5); sctx.stroke();
		sctx.textAlign = "center";
		for (var t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
			var x = Math.round(X(t)) + 0.5;
			sctx.beginPath(); sctx.moveTo(x, y); sctx.lineTo(x, y + 5); sctx.stroke();
			sctx.fillText(num(t), x, y + 16);
		}
		sctx.textAlign = "right";
		sctx.fillText("time (" + runs[0].unit + ")", LEFT - 6, y + 16);
	}

	/* the devices whose rows the canvas shows: [first, end) of run r */
	function rowsInView(r) {
		var a = Math.floor((off - r.top - TITLE) / r.row), b = Math.ceil((off + ch - r.top - TITLE) / r.row);
		return [Math.max(0, a), Math.min(r.p, b)];
	}

	function draw() {
		var began = performance.now();
		size();
		/* the canvas sticks to the top of the window while the lanes pass under it */
		off = Math.max(0, Math.min(contentH - ch, window.scrollY - spaceTop));
		off = Math.round(off * dpr) / dpr; /* the lanes on whole device pixels */
		columns();
		pix.fill(PX.back);
		stats.drawn = stats.aggregated = stats.arrows = 0;
		runs.forEach(function (r) {
			var v = rowsInView(r);
			for (var d = v[0]; d < v[1]; d++) { drawLane(r, d); drawUnder(r, d); }
		});
		var t1 = performance.now();
		ctx.putImageData(image, 0, 0);
		var t2 = performance.now();
		ctx.setTransform(dpr, 0, 0, dpr, 0, -off * dpr);
		ctx.font = "10px sans-serif"; ctx.textAlign = "center";
		runs.forEach(function (r) {
			var v = rowsInView(r);
			ctx.save();
			ctx.beginPath(); ctx.rect(LEFT, r.top, plotW() + 1, r.height); ctx.clip();
			for (var d = v[0]; d < v[1]; d++) { drawOpDetails(r, d); drawStreams(r, d); }
			drawArrows(r, v[0], v[1]);
			drawRequests(r);
			ctx.restore();
			ctx.fillStyle = "#222"; ctx.textAlign = "left"; ctx.font = "bold 12px sans-serif";
			if (r.top + TITLE > off && r.top < off + ch) ctx.fillText(r.title, 6, r.top + 14);
			ctx.textAlign = "right";
			for (d = v[0]; d < v[1]; d++) {
				var y = laneTop(r, d);
				ctx.font = "11px sans-serif"; ctx.fillStyle = "#222";
				ctx.fillText(r.devices[d].label, LEFT - 6, y + 13);
				if (r.memPeak > 0) {
					ctx.font = "9px sans-serif"; ctx.fillStyle = MEM_C;
					ctx.fillText("memory", LEFT - 6, y + LANE + r.streamH + WIRE + 10);
				}
			}
			ctx.textAlign = "center"; ctx.font = "10px sans-serif";
		});
		drawSelection();
		var t3 = performance.now();
		drawFooter();
		stats.frames++;
		/* where the frame's time went: the lanes' pixels, putting them, what is drawn over
		 * them, the footer (window.ppsimView.stats, for benchmarks) */
		stats.parts = [t1 - began, t2 - t1, t3 - t2, performance.now() - t3];
		el("window").textContent = num(view.t0) + " to " + num(view.t1) + " " + runs[0].unit +
			" (" + stats.drawn + " ops drawn one by one, " + stats.aggregated + " in pixel columns)";
		stats.ms = performance.now() - began;
	}

	var pending = false;
	function redraw() {
		if (pending) return;
		pending = true;
		requestAnimationFrame(function () { pending = false; draw(); });
	}

	function setWindow(t0, t1, later) {
		/* at the closest, the shortest op fills the view */
		var span = hi - lo, minSpan = Math.max(shortest, span * 1e-9, 1e-12);
		if (t1 - t0 < minSpan) { var c = (t0 + t1) / 2; t0 = c - minSpan / 2; t1 = c + minSpan / 2; }
		if (t1 - t0 > span * 1.05) { t0 = lo - span * 0.025; t1 = hi + span * 0.025; }
		view.t0 = t0; view.t1 = t1;
		if (later) redraw(); else draw();
	}
	function zoomAt(x, f, later) {
		var t = T(x);
		setWindow(t - (t - view.t0) * f, t + (view.t1 - t) * f, later);
	}
	function pan(share, later) {
		var span = view.t1 - view.t0;
		setWindow(view.t0 + span * share, view.t1 + span * share, later);
	}
	function fit() { setWindow(lo, hi); }

	/* The op under canvas point (x, y), or null: [run, op index] ([run, request, "request"]). */
	function hit(x, y) {
		y += off;
		for (var k = 0; k < runs.length; k++) {
			var r = runs[k], yy = y - r.top - TITLE;
			var ry = yy - r.p * r.row - 16;
			if (r.req && ry >= 0 && ry < r.reqLanes * RH && x >= LEFT) {
				var lane = Math.floor(ry / RH), t = T(x), g = r.req;
				for (var q = 0; q < g.n; q++)
					if (g.lane[q] === lane && g.A[q] <= t && g.E[q] >= t) return [r, q, "request"];
				return null;
			}
			if (yy < 0 || yy >= r.p * r.row) continue;
			var d = Math.floor(yy / r.row), in_ = yy - d * r.row - CRITH;
			var inMem = in_ - LANE - r.streamH - WIRE;
			if (r.hostMem && x >= LEFT && inMem >= 0 && inMem < MEM) return [r, d, "memory", T(x)];
			if (in_ < 0 || in_ >= LANE || x < LEFT) return null;
			var t = T(x), i = firstAfter(r, d, t);
			var slack = (view.t1 - view.t0) / plotW();
			if (i < r.devStart[d + 1] && r.S[i] <= t + slack) {
				if (r.OV[i] === 1 && in_ >= LANE / 2) i++;
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

	/* an op's details, as lines (the first its name) */
	function details(r, i) {
		var d = r.dev[i], prev = i > r.devStart[d] ? r.E[i - 1] : r.origin / r.tick;
		var lines = [
			label(r, i) + " " + r.kindNames[r.K[i]],
			"micro-batch " + r.MB[i] + ", stage " + r.ST[i] + ", chunk " + r.chunkOf[r.ST[i]] +
				", GPU " + d,
			"start " + num(r.S[i]) + ", end " + num(r.E[i]) + " " + r.unit +
				" (" + num(r.E[i] - r.S[i]) + ")",
			"idle before it: " + num(Math.max(0, r.S[i] - prev)) + " " + r.unit
		];
		if (r.IN) {
			/* with streams: what of its span (its pair's) it does not compute */
			var pf = r.OV[i] === 2 ? i - 1 : i, pair = isPairFirst(r, pf), e = pair ? Math.max(r.E[pf], r.E[pf + 1]) : r.E[pf];
			var inner = Math.min(e - r.S[pf], pair ? r.IN[pf] + r.IN[pf + 1] : r.IN[pf]);
			lines.push((pair ? "the pair's " : "") + "compute " + num(e - r.S[pf] - inner) + " " + r.unit +
				", exposed communication inside it " + num(inner));
		}
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
		if (r.hostMem)
			lines.push("as it starts: " + memoryLines(r, d, r.S[i]).join(", "));
		return lines;
	}
	/* the activations of device d of r (with offload) at time t, as lines */
	function memoryLines(r, d, t) {
		return ["activations on the GPU " + amount(r, levelAt(r.mem[d], t)) + " (peak " + amount(r, r.mem[d].peak) + ")",
			"offloaded to host memory " + amount(r, levelAt(r.hostMem[d], t)) + " (peak " + amount(r, r.hostMem[d].peak) + ")"];
	}
	function describe(r, i, what, t) {
		if (what === "request") return describeRequest(r, i);
		if (what === "memory")
			return "<b>" + esc(r.devices[i].label) + " memory</b> at " + esc(num(t)) + " " + esc(r.unit) + "<br>" +
				memoryLines(r, i, t).map(esc).join("<br>");
		var lines = details(r, i);
		lines[0] = "<b>" + esc(lines[0].split(" ")[0]) + "</b> " + esc(lines[0].replace(/^\S+ /, ""));
		return lines.map(function (l, j) { return j ? esc(l) : l; }).join("<br>");
	}

	/* Selects op i of run k: brings it into view (in time, and its lane on the screen) and
	 * writes its details to the live region. */
	function select(k, i) {
		var r = runs[k];
		if (!r || i < 0 || i >= r.nops) return;
		sel = {k: k, i: i};
		var span = view.t1 - view.t0, d = r.dev[i];
		if (r.E[i] - r.S[i] > span * 0.9) setWindow(r.S[i] - (r.E[i] - r.S[i]) * 0.3, r.E[i] + (r.E[i] - r.S[i]) * 0.3, true);
		else if (r.S[i] < view.t0 || r.E[i] > view.t1) setWindow((r.S[i] + r.E[i]) / 2 - span / 2, (r.S[i] + r.E[i]) / 2 + span / 2, true);
		else redraw();
		var y = laneTop(r, d), box = space.getBoundingClientRect(), top = box.top + y;
		if (top < 0 || top + LANE > Math.min(window.innerHeight - footH, box.top + contentH))
			window.scrollBy(0, top - Math.max(40, (window.innerHeight - footH) / 2));
		var lines = details(r, i), n = i - r.devStart[d] + 1, of = r.devStart[d + 1] - r.devStart[d];
		el("details").textContent = (runs.length > 1 ? r.schedule + ": " : "") + lines.join("; ") +
			" (op " + n + " of " + of + " on GPU " + d + ")";
		redraw();
	}
	function move(key) {
		if (!sel) {
			/* the first op in view of the first device in view */
			for (var k = 0; k < runs.length; k++) {
				var v = rowsInView(runs[k]);
				for (var d = v[0]; d < v[1]; d++) {
					var i = firstAfter(runs[k], d, view.t0);
					if (i < runs[k].devStart[d + 1]) return select(k, i);
				}
			}
			return select(0, 0);
		}
		var r = runs[sel.k], i = sel.i, dv = r.dev[i], a = r.devStart[dv], b = r.devStart[dv + 1];
		if (key === "ArrowLeft" && i > a) return select(sel.k, i - 1);
		if (key === "ArrowRight" && i + 1 < b) return select(sel.k, i + 1);
		if (key === "Home") return select(sel.k, a);
		if (key === "End") return select(sel.k, b - 1);
		if (key === "ArrowUp" || key === "ArrowDown") {
			var step = key === "ArrowUp" ? -1 : 1, mid = (r.S[i] + r.E[i]) / 2, k2 = sel.k, d2 = dv;
			/* the next device in that direction that ran ops, across runs */
			for (;;) {
				d2 += step;
				if (d2 < 0) { if (--k2 < 0) return; d2 = runs[k2].p - 1; }
				if (d2 >= runs[k2].p) { if (++k2 >= runs.length) return; d2 = 0; }
				var r2 = runs[k2];
				if (r2.devStart[d2 + 1] > r2.devStart[d2]) {
					var j = Math.min(firstAfter(r2, d2, mid), r2.devStart[d2 + 1] - 1);
					if (j > r2.devStart[d2] && Math.abs(r2.S[j - 1] + r2.E[j - 1] - 2 * mid) < Math.abs(r2.S[j] + r2.E[j] - 2 * mid)) j--;
					return select(k2, j);
				}
			}
		}
	}

	/* input: pointer (mouse, pen, touch), wheel, keys */
	var pointers = {}, gesture = null;
	function npointers() { return Object.keys(pointers).length; }
	canvas.addEventListener("wheel", function (e) {
		if (e.ctrlKey || e.metaKey) {
			e.preventDefault();
			zoomAt(e.offsetX, Math.exp(Math.max(-300, Math.min(300, e.deltaY)) * 0.004), true);
		} else if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
			e.preventDefault();
			pan(e.deltaX / plotW(), true);
		}
		/* else the page scrolls */
	}, {passive: false});
	canvas.addEventListener("pointerdown", function (e) {
		pointers[e.pointerId] = {x: e.clientX, y: e.clientY};
		try { canvas.setPointerCapture(e.pointerId); } catch (err) { /* a synthetic pointer */ }
		var ids = Object.keys(pointers);
		if (ids.length === 1) gesture = {x: e.clientX, y: e.clientY, t0: view.t0, t1: view.t1, moved: false, ox: e.offsetX, oy: e.offsetY};
		else if (ids.length === 2) {
			var a = pointers[ids[0]], b = pointers[ids[1]];
			gesture = {pinch: Math.max(10, Math.abs(a.x - b.x)), mid: (a.x + b.x) / 2 - canvas.getBoundingClientRect().left,
				t0: view.t0, t1: view.t1, moved: true};
		}
	});
	canvas.addEventListener("pointermove", function (e) {
		if (pointers[e.pointerId]) pointers[e.pointerId] = {x: e.clientX, y: e.clientY};
		if (gesture && npointers() === 2 && gesture.pinch) {
			var ids = Object.keys(pointers), a = pointers[ids[0]], b = pointers[ids[1]];
			var f = gesture.pinch / Math.max(10, Math.abs(a.x - b.x));
			var span = (gesture.t1 - gesture.t0) * f, t = gesture.t0 + (gesture.mid - LEFT) * (gesture.t1 - gesture.t0) / plotW();
			setWindow(t - (gesture.mid - LEFT) * span / plotW(), t + (width - RIGHT - gesture.mid) * span / plotW(), true);
			return;
		}
		if (gesture && npointers() === 1) {
			var dx = e.clientX - gesture.x;
			if (Math.abs(dx) > 3 || Math.abs(e.clientY - gesture.y) > 3) gesture.moved = true;
			if (gesture.moved) {
				var dt = dx * (gesture.t1 - gesture.t0) / plotW();
				tip.style.display = "none";
				setWindow(gesture.t0 - dt, gesture.t1 - dt, true);
			}
			return;
		}
		if (e.pointerType !== "mouse") return;
		var h = hit(e.offsetX, e.offsetY);
		if (!h) { tip.style.display = "none"; return; }
		tip.innerHTML = describe(h[0], h[1], h[2], h[3]);
		tip.style.display = "block";
		tip.style.left = Math.min(e.pageX + 12, document.body.scrollWidth - 320) + "px";
		tip.style.top = e.pageY + 14 + "px";
	});
	function up(e) {
		var g = gesture;
		delete pointers[e.pointerId];
		if (npointers() === 0) {
			gesture = null;
			if (g && !g.moved && !g.pinch && e.type === "pointerup") {
				var h = hit(g.ox, g.oy);
				if (h && !h[2]) select(runs.indexOf(h[0]), h[1]);
			}
		} else if (npointers() === 1) {
			var id = Object.keys(pointers)[0];
			gesture = {x: pointers[id].x, y: pointers[id].y, t0: view.t0, t1: view.t1, moved: true};
		}
	}
	canvas.addEventListener("pointerup", up);
	canvas.addEventListener("pointercancel", up);
	canvas.addEventListener("pointerleave", function (e) { if (e.pointerType === "mouse") tip.style.display = "none"; });
	canvas.addEventListener("dblclick", fit);
	window.addEventListener("keydown", function (e) {
		var t = e.target, tag = t && t.tagName;
		if (e.ctrlKey || e.metaKey || e.altKey || tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
		var mid = LEFT + plotW() / 2, key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
		if (sel && (key === "w" || key === "s")) mid = Math.max(LEFT, Math.min(width - RIGHT, X((runs[sel.k].S[sel.i] + runs[sel.k].E[sel.i]) / 2)));
		if (key === "+" || key === "=" || key === "w") zoomAt(mid, key === "w" ? 0.8 : 0.5, true);
		else if (key === "-" || key === "s") zoomAt(mid, key === "s" ? 1.25 : 2, true);
		else if (key === "a") pan(-0.2, true);
		else if (key === "d") pan(0.2, true);
		else if (key === "0") { fit(); }
		else if (t === canvas && /^(Arrow(Left|Right|Up|Down)|Home|End)$/.test(key)) move(key);
		else if (t === canvas && key === "f" && sel) {
			var r = runs[sel.k], w = Math.max(r.E[sel.i] - r.S[sel.i], shortest);
			setWindow(r.S[sel.i] - 2 * w, r.E[sel.i] + 2 * w, true);
		} else if (t === canvas && key === "Escape") { sel = null; el("details").textContent = "No op selected."; redraw(); }
		else return;
		e.preventDefault();
	});
	el("fit").onclick = fit;
	el("zin").onclick = function () { zoomAt(LEFT + plotW() / 2, 0.5); };
	el("zout").onclick = function () { zoomAt(LEFT + plotW() / 2, 2); };
	el("arrows").onchange = draw;
	window.addEventListener("resize", function () { measured = false; redraw(); });
	window.addEventListener("scroll", redraw, {passive: true});

	/* the bubble of each device, split into fill, drain, waits for transfers and the rest */
	function breakdown() {
		var html = "";
		runs.forEach(function (r) {
			/* with offload, the peaks of activations on the GPU and in host memory */
			var host = r.hostMem && r.devices.length && r.devices[0].host_bytes !== undefined;
			html += "<table class=\"bubble\"><caption>" + esc(r.title) + "</caption><tr><th scope=\"col\">device</th>" +
				"<th scope=\"col\">busy</th><th scope=\"col\">busy share</th><th scope=\"col\">fill</th><th scope=\"col\">drain</th>" +
				"<th scope=\"col\">comm wait</th><th scope=\"col\">other idle</th>" +
				"<th scope=\"col\">bubble</th><th scope=\"col\">peak activations</th>" +
				(host ? "<th scope=\"col\">activations on the GPU (GB)</th><th scope=\"col\">in host memory (GB)</th>" : "") +
				"<td class=\"bar\" aria-hidden=\"true\"></td></tr>";
			r.devices.forEach(function (v) {
				var span = r.makespan, other = Math.max(0, v.idle - v.fill - v.drain - v.comm_wait);
				var parts = [["busy", v.busy], ["fill", v.fill], ["drain", v.drain],
					["comm", v.comm_wait], ["other", other]];
				html += "<tr><th scope=\"row\">" + esc(v.label) + "</th><td>" + num(v.busy) + "</td><td>" +
					(span > 0 ? (100 * v.busy / span).toFixed(1) + "%" : "") + "</td><td>" +
					num(v.fill) + "</td><td>" + num(v.drain) + "</td><td>" + num(v.comm_wait) +
					"</td><td>" + num(other) + "</td><td>" + num(span > 0 ? v.idle / span : 0) +
					"</td><td>" + num(v.peak_activations) + "</td>" +
					(host ? "<td>" + num(v.activation_bytes / 1e9) + "</td><td>" + num(v.host_bytes / 1e9) + "</td>" : "") +
					"<td class=\"bar\" aria-hidden=\"true\">";
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
		var K = r.commKinds, html = "<table class=\"streams\"><caption>communication of " + esc(r.title) +
			"</caption><tr><th scope=\"col\">device</th><th scope=\"col\">end</th>";
		K.forEach(function (k) { html += "<th scope=\"col\">exposed " + esc(k) + "</th><th scope=\"col\">" + esc(k) + " stream</th>"; });
		html += "</tr>";
		r.streams.forEach(function (v, d) {
			html += "<tr><th scope=\"row\">" + esc(r.devices[d].label) + "</th><td>" + num(v.end) + "</td>";
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

	/* the legend: each colour with its one meaning (window.ppsimView.legend for tests) */
	var legendEntries = [];
	function legend() {
		var seen = [false, false, false, false], html = "";
		var add = function (colour, text, style) {
			legendEntries.push({colour: colour, text: text});
			html += "<span><i aria-hidden=\"true\" style=\"" + (style || "background:" + colour) + "\"></i>" + esc(text) + "</span>";
		};
		runs.forEach(function (r) { for (var i = 0; i < r.nops; i++) seen[r.K[i]] = true; });
		for (var k = 0; k < 4; k++)
			if (seen[k]) add(COLOR[k], runs[0].kindLetters[k] + " " + runs[0].kindNames[k]);
		if (runs.some(function (r) { return r.v > 1; }))
			for (k = 0; k < 4; k++)
				if (seen[k]) add(LIGHT[k], runs[0].kindLetters[k].toLowerCase() + " " + runs[0].kindNames[k] + " on an odd chunk");
		add(IDLE, "idle (a lane's column is drawn as high as the device is busy in it)");
		if (runs.some(function (r) { return r.IN; }))
			add(INNER_C, "exposed communication inside an op (waiting or slowed): hatched, over what it computes",
				"background:repeating-linear-gradient(135deg," + INNER_C + " 0 2px," + INNER_BG + " 2px 4px)");
		if (runs.some(function (r) { return r.SL; }))
			add(CRIT, "critical: no slack (outlined; a mark above the lane)", "box-sizing:border-box;border:2px solid " + CRIT);
		if (runs.some(function (r) { return r.nmsgs > 0; }))
			add(WIRE_C, "transfers, arrows to the consumer");
		add(BUBBLE_C, "bubble over time: the share of devices idle (in view)");
		if (runs.some(function (r) { return r.hostMem; })) {
			add(MEM_C, "activation memory on the GPU");
			add(HOST_C, "activations offloaded to host memory (over the GPU's)");
		} else if (runs.some(function (r) { return r.memPeak > 0; })) {
			add(MEM_C, "activation memory");
		}
		add(SEL_C, "the selected op (keyboard or click)");
		var withStreams = runs.filter(function (r) { return r.streams; });
		if (withStreams.length > 0) {
			withStreams[0].streamNames.forEach(function (n, st) { add(SCOLOR[st % SCOLOR.length], n + " stream (under the ops)"); });
			add(EXPOSED_C, "exposed: streams past the last op");
		}
		if (runs.some(function (r) { return r.req; })) {
			add(REQ_C[0], "request waiting"); add(REQ_C[1], "to its first token"); add(REQ_C[2], "decoding");
		}
		el("legend").innerHTML = html;
	}

	/* the lanes on the canvas now, for tests: canvas pixels (device) of each visible lane */
	function lanes() {
		var out = [];
		runs.forEach(function (r, k) {
			var v = rowsInView(r);
			for (var d = v[0]; d < v[1]; d++) {
				var y = laneTop(r, d), y0 = dev(y), y1 = dev(y + LANE);
				if (y0 < 0 || y1 > H) continue;
				var z = r.bz[d], ts = view.t0, te = view.t1;
				var busy = busyAt(z, upper(z.E, 0, z.n, te), te) - busyAt(z, upper(z.E, 0, z.n, ts), ts);
				var cover = coverAt(z, upper(z.E, 0, z.n, te), te) - coverAt(z, upper(z.E, 0, z.n, ts), ts);
				out.push({run: k, device: d, x0: cx0, x1: cx1, y0: y0, y1: y1, share: busy / (te - ts), cover: cover / (te - ts)});
			}
		});
		return out;
	}

	/* the memory lanes on the canvas now, for tests: per visible lane its device pixels, the
	 * height of its scale, the peaks on the GPU and in host memory (null without offload) and
	 * the bytes of their unit */
	function memoryLanes() {
		var out = [];
		runs.forEach(function (r, k) {
			var v = rowsInView(r);
			if (!(r.memPeak > 0)) return;
			for (var d = v[0]; d < v[1]; d++) {
				var yt = laneTop(r, d) + LANE + r.streamH, my0 = dev(yt + WIRE), my1 = dev(yt + WIRE + MEM - 2);
				if (my0 < 0 || my1 > H) continue;
				out.push({run: k, device: d, x0: cx0, x1: cx1, y0: my0, y1: my1, mh: my1 - my0 - Math.round(dpr),
					gap: Math.round(dpr), scale: r.memPeak, gpu: r.mem[d].peak, host: r.hostMem ? r.hostMem[d].peak : null,
					bytes: r.actBytes || null, colours: {gpu: MEM_C, host: HOST_C, back: MEMBACK}});
			}
		});
		return out;
	}

	el("opcount").textContent = String(total);
	legend();
	breakdown();
	el("details").textContent = "No op selected. Focus the timeline and press an arrow key.";
	fit();
	window.ppsimView = {
		ops: total, runs: runs.length, stats: stats, view: view, readyMs: performance.now() - began,
		setWindow: setWindow, fit: fit, zoomAt: zoomAt, pan: pan, draw: draw, select: select,
		selected: function () { return sel ? {run: sel.k, op: sel.i} : null; },
		lanes: lanes, legend: legendEntries, idle: IDLE, background: BACK, inner: [INNER_C, INNER_BG],
		labelContrast: function () {
			return COLOR.concat(LIGHT).map(function (c) { return contrast(c, labelOn(c)); });
		},
		/* the tooltip text at canvas point (x, y), or null */
		hit: function (x, y) { var h = hit(x, y); return h ? describe(h[0], h[1], h[2], h[3]) : null; },
		memory: memoryLanes,
		/* the canvas point at the middle of op i of run k, as the canvas shows it now */
		locate: function (k, i) {
			var r = runs[k];
			return {x: (Math.max(LEFT, X(r.S[i])) + Math.min(width - RIGHT, X(r.E[i]))) / 2,
				y: laneTop(r, r.dev[i]) - off + (r.OV[i] === 2 ? 0.75 : r.OV[i] === 1 ? 0.25 : 0.5) * LANE};
		}
	};
	document.body.setAttribute("data-ready", "1");

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
