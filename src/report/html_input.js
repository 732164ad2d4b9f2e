	/* html_input.js, the last of the viewer's three files (see html_data.js): the op under the
	 * pointer and its details, the keyboard's selection, pointer, wheel and key input, the
	 * bubble and streams tables, the legend, and window.ppsimView for scripts and tests. */
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
			/* a training step's activations (a serving run keeps none) */
			var acts = r.devices.length && r.devices[0].peak_activations !== undefined;
			html += "<table class=\"bubble\"><caption>" + esc(r.title) + "</caption><tr><th scope=\"col\">device</th>" +
				"<th scope=\"col\">busy</th><th scope=\"col\">busy share</th><th scope=\"col\">fill</th><th scope=\"col\">drain</th>" +
				"<th scope=\"col\">comm wait</th><th scope=\"col\">other idle</th>" +
				"<th scope=\"col\">bubble</th>" + (acts ? "<th scope=\"col\">peak activations</th>" : "") +
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
					"</td>" + (acts ? "<td>" + num(v.peak_activations) + "</td>" : "") +
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
	 * step taken apart; the kinds no device has any time of are left out. */
	function streamsTable(r) {
		if (!r.streams) return "";
		var K = [], html = "<table class=\"streams\"><caption>communication of " + esc(r.title) +
			"</caption><tr><th scope=\"col\">device</th><th scope=\"col\">end</th>";
		r.commKinds.forEach(function (k, j) {
			if (r.streams.some(function (v) { return v.comm[j] > 0 || v.exposed[j] > 0; })) K.push([k, j]);
		});
		K.forEach(function (k) { html += "<th scope=\"col\">exposed " + esc(k[0]) + "</th><th scope=\"col\">" + esc(k[0]) + " stream</th>"; });
		html += "</tr>";
		r.streams.forEach(function (v, d) {
			html += "<tr><th scope=\"row\">" + esc(r.devices[d].label) + "</th><td>" + num(v.end) + "</td>";
			K.forEach(function (k) {
				html += "<td>" + num(v.exposed[k[1]]) + "</td><td>" + num(v.comm[k[1]]) + "</td>";
			});
			html += "</tr>";
		});
		html += "</table>";
		var b = r.breakdown;
		if (b) {
			var parts = [["compute", b.compute], ["bubble", b.bubble], ["exposed p2p", b.exposed_p2p]];
			K.forEach(function (k) { parts.push(["exposed " + k[0], b.exposed[k[1]]]); });
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
				var busy = busyAt(z, busyFind(z, te), te) - busyAt(z, busyFind(z, ts), ts);
				var cover = coverAt(z, busyFind(z, te), te) - coverAt(z, busyFind(z, ts), ts);
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
	/* A large page's drawing warmed up as it opens: the first frames run before the engine
	 * has compiled their loops, at two or three times the cost of the later ones, so a few
	 * views from the whole run down to single ops are drawn once (tens of ms, on a load of
	 * seconds) that the first zoom is as quick as the rest. */
	if (total >= 100000) {
		for (var z = 1; z <= 8; z++) zoomAt(LEFT + plotW() * 0.4, 0.4);
		fit();
	}
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
