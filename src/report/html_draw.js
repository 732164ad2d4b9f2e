	/* html_draw.js, the second of the viewer's three files (see html_data.js): the page laid
	 * out, the canvas sized, each frame's lanes, streams, transfers, memory, arrows, requests and
	 * footer drawn, and the view zoomed and panned. */
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
	/* per column boundary, the record a lane's search found there (locate()) */
	var JB = new Int32Array(0), JH = new Int32Array(0);
	/* per column boundary of the bubble strip, its time within the run and the busy time before it */
	var FT = new Float64Array(0), FV = new Float64Array(0);
	function columns() {
		cx0 = Math.round(LEFT * dpr); cx1 = Math.round((width - RIGHT) * dpr);
		if (colT.length < cx1 - cx0 + 1) {
			colT = new Float64Array(cx1 - cx0 + 1);
			JB = new Int32Array(cx1 - cx0 + 1); JH = new Int32Array(cx1 - cx0 + 1);
			FT = new Float64Array(cx1 - cx0 + 1); FV = new Float64Array(cx1 - cx0 + 1);
		}
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
	 * streams, over it as high as its ops cover it, hatched (exposed communication). It reads
	 * the records of the device's intervals alone (busySummary), each column boundary's in
	 * one search from the last. */
	function drawLane(r, d) {
		var z = r.bz[d], Q = z.Q, w = z.w, yt = laneTop(r, d), y0 = dev(yt), y1 = dev(yt + LANE), h = y1 - y0;
		var cy0 = dev(yt - CRITH), cy1 = cy0 + Math.max(1, Math.round(2 * dpr)), crit = !!r.SL;
		var ncol = cx1 - cx0, carry = 0, kinds = KINDS, wideEdge = 4 * dpr, kaT = NaN;
		rect(cx0, cx1, y0, y1, PX.idle);
		locate(Q, z.X, z.n, colT, ncol + 1, false, JB);
		var ta = colT[0], j = JB[0], ca = busyAt(z, j, ta), n = z.n;
		var va = z.R ? coverAt(z, j, ta) : 0, carryV = 0;
		for (var c = 0; c < ncol; c++) {
			var tb = colT[c + 1], o = j * w, jb = JB[c + 1];
			if (j >= n || Q[o + BS] >= tb) {
				/* nothing in the column (the quick case of idle time) */
				ta = tb; j = jb;
				continue;
			}
			var cb = busyAt(z, jb, tb), ob = jb * w;
			var f = (cb - ca) / (tb - ta);
			f = f < 0 ? 0 : f > 1 ? 1 : f;
			var inB = jb < n && Q[ob + BS] < tb, count = (inB ? jb : jb - 1) - j + 1;
			var want = f * h, px = Math.round(want + carry);
			px = Math.max(Math.floor(want), Math.min(Math.ceil(want), px));
			carry += want - px;
			var x = cx0 + c;
			if (z.R) {
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
					var s0 = Q[o + BS], e0 = Q[o + BE], fl = Q[o + BF];
					var edge = e0 <= tb && e0 > ta && (e0 - s0) * dpr >= wideEdge * (tb - ta);
					var v = (edge ? (fl & 64 ? PX.lightEdge : PX.darkEdge) : (fl & 64 ? PX.light : PX.dark))[fl & 3];
					if (fl & 16) {
						/* the pair's second op in the lower half, the first above it */
						var half = Math.round(h / 2);
						var v2 = (edge ? (fl & 128 ? PX.lightEdge : PX.darkEdge) : (fl & 128 ? PX.light : PX.dark))[fl >> 2 & 3];
						column(x, y1 - Math.min(px, half), y1, v2);
						if (px > half) column(x, y1 - px, y1 - half, v);
					} else {
						column(x, y1 - px, y1, v);
					}
				} else {
					/* merged: the kinds stacked by the share of the column they cover */
					var sum = 0, k, yy = y1, acc = 0;
					/* the kinds before the column's start, kept from the last column */
					if (kaT !== ta) kindsAt(z, j, ta, KA);
					kindsAt(z, jb, tb, KB);
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
			/* a critical op in the column: the count of them before its end is more than
			 * before its first */
			if (crit && Q[ob + BC] + (inB && Q[ob + BF] & 32 ? 1 : 0) > Q[o + BC]) column(x, cy0, cy1, PX.crit);
			j = jb; ta = tb; ca = cb;
		}
	}

	/* transfers (a column with any) and memory (its highest level) under the lane */
	function drawUnder(r, d) {
		var yt = laneTop(r, d) + LANE + r.streamH, ncol = cx1 - cx0, c;
		var wy0 = dev(yt + 1), wy1 = dev(yt + WIRE - 1);
		var w = r.wz[d], j, dt = (colT[ncol] - colT[0]) / ncol, wd = cellLevel(w.cells, dt);
		if (w.n && wd < 0) locate(w.Q, w.X, w.n, colT, ncol + 1, false, JB);
		for (c = 0; c < ncol && w.n; c++) {
			j = JB[c];
			if (wd < 0 ? j < w.n && w.Q[2 * j] < colT[c + 1] : wireColumn(w, wd, colT[c], colT[c + 1]))
				column(cx0 + c, wy0, wy1, PX.wire);
		}
		if (!(r.memPeak > 0)) return;
		var my0 = dev(yt + WIRE), my1 = dev(yt + WIRE + MEM - 2), mh = my1 - my0 - Math.round(dpr);
		rect(cx0, cx1, my0, my1, PX.memBack);
		var m = r.mem[d], h = r.hostMem ? r.hostMem[d] : null;
		/* with many events a column, from their cells (memColumn), else from a search at
		 * each column boundary */
		var md = cellLevel(m.cells, dt), hd = h ? cellLevel(h.cells, dt) : -1;
		if (md < 0) locate(m.Q, m.X, m.n, colT, ncol + 1, true, JB);
		if (h && hd < 0) locate(h.Q, h.X, h.n, colT, ncol + 1, true, JH);
		for (c = 0; c < ncol; c++) {
			var lvl = md < 0 ? memMax(m, JB[c], JB[c + 1]) : memColumn(m, md, colT[c], colT[c + 1]);
			var hgt = Math.round(mh * lvl / r.memPeak);
			if (hgt > 0) column(cx0 + c, my1 - hgt, my1, PX.mem);
			if (!h) continue;
			/* the host's highest level in the column, a band over the GPU's (a pixel apart) */
			var up = Math.round(mh * (hd < 0 ? memMax(h, JH[c], JH[c + 1]) : memColumn(h, hd, colT[c], colT[c + 1])) / r.memPeak);
			var base = my1 - hgt - (hgt > 0 ? Math.round(dpr) : 0);
			if (up > 0) column(cx0 + c, Math.max(my0, base - up), base, PX.host);
		}
	}

	/* what is drawn on top of the pixels: per op in a lane that holds few, its label, its
	 * outline when critical; the selection; the streams; the arrows; the requests */
	function drawOpDetails(r, d) {
		var z = r.bz[d], yt = laneTop(r, d), j0 = busyFind(z, view.t0), j1 = lowerQ(z.Q, z.w, BS, j0, z.n, view.t1);
		if (j1 - j0 > plotW() / 3) {
			stats.aggregated += j1 - j0;
			return;
		}
		for (var j = j0; j < j1; j++) {
			var i = z.I[j], pair = isPairFirst(r, i), clipped = z.R && z.Q[j * z.w + BR] < 1 && busyClip(r, d, j);
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
		var z = r.bz[d], yt = laneTop(r, d), y1 = dev(yt + LANE), top = y1 - Math.floor(z.Q[j * z.w + BR] * (y1 - dev(yt)));
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
		var z = r.bz[d], j = busyFind(z, r.S[r.OV[i] === 2 ? i - 1 : i]);
		var clipped = z.R && j < z.n && z.Q[j * z.w + BR] < 1 && busyClip(r, d, j);
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
		if (!v.byStream) v.byStream = streamIndex(sp);
		v.byStream.forEach(function (z, st) {
			if (z.n === 0) return;
			ctx.fillStyle = SCOLOR[st % SCOLOR.length];
			/* a run of spans drawn as one bar: from the first in view, the spans that start
			 * before the pixel after the run's end join it (one search per bar, not a pass over
			 * every span: a run of experts holds millions) */
			var i = upper(z.E, 0, z.n, view.t0), px = 1;
			while (i < z.n && z.S[i] <= view.t1) {
				var x0 = X(z.S[i]), end = z.E[i], j = i + 1;
				/* j only grows, and the run's end with it, until no span joins */
				for (;;) {
					j = lower(z.S, j, z.n, T(X(end) + px));
					if (z.E[j - 1] <= end) break;
					end = z.E[j - 1];
				}
				ctx.fillRect(x0, y + 2 * (st % 3), Math.max(px, X(end) - x0), 2);
				i = j;
			}
		});
	}

	/* A device's stream spans [stream, start, end, ...] by stream, each in time order: S the
	 * starts and E the ends (a stream's spans never overlap: its pieces run one at a time, and
	 * an overlapped pair's make one span), so both are sorted. */
	function streamIndex(sp) {
		var by = [];
		for (var i = 0; i < sp.length; i += 3) {
			var st = sp[i];
			while (by.length <= st) by.push([]);
			by[st].push(i);
		}
		return by.map(function (list) {
			list.sort(function (a, b) { return sp[a + 1] - sp[b + 1]; });
			var z = {n: list.length, S: new Float64Array(list.length), E: new Float64Array(list.length)};
			list.forEach(function (at, k) { z.S[k] = sp[at + 1]; z.E[k] = sp[at + 2]; });
			return z;
		});
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
			var top = Math.round((y + 2) * s), hpx = Math.round(hgt * s), g = r.tot, Q = g.Q, row, c, q;
			for (row = top; row < top + hpx; row++) stripPix.fill(PX.memBack, row * W + cx0, row * W + cx1);
			/* the busy time of all devices before each column boundary (within the run),
			 * found in one pass of searches (locate()) */
			for (c = 0; c <= ncol; c++) FT[c] = Math.min(Math.max(colT[c], rs), re);
			locate(Q, g.X, g.n, FT, ncol + 1, false, JB);
			for (c = 0; c <= ncol; c++) {
				q = 3 * JB[c] - 3;
				FV[c] = q >= 0 ? Q[q + 1] + Q[q + 2] * (FT[c] - Q[q]) : 0;
			}
			var carry = 0;
			for (c = 0; c < ncol; c++) {
				var ta = FT[c], tb = FT[c + 1];
				if (colT[c] >= re || colT[c + 1] <= rs || tb <= ta) continue;
				var va = FV[c], vb = FV[c + 1];
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

