# The source document's figures and docs/concepts.md's expected values, asserted on the JSON report.

# Bubble ratio (p-1)/(m+p-1) for GPipe and 1F1B: simulated and closed form.
for s in 1f1b gpipe; do
	run_json -s $s -p 4 -m 16
	expect bubble_ratio 3/19
	expect bubble_ratio_theory 3/19
	run_json -s $s -p 4 -m 4
	expect bubble_ratio 3/7
	expect bubble_ratio_theory 3/7
	run_json -s $s -p 4 -m 8
	expect bubble_ratio 3/11
	expect bubble_ratio_theory 3/11
	expect makespan 33
	run_json -s $s -p 4 -m 1
	expect bubble_ratio 0.75
	expect bubble_ratio_theory 0.75
	run_json -s $s -p 8 -m 1
	expect bubble_ratio 0.875
	expect bubble_ratio_theory 0.875
done

# Peak activations: GPipe holds all m micro-batches; 1F1B holds min(p-d, m) on device d.
for pm in "4 8" "4 2" "8 16" "3 5"; do
	set -- $pm
	p=$1
	m=$2
	run_json -s gpipe -p $p -m $m
	d=0
	while [ $d -lt $p ]; do
		expect devices.$d.peak_activations $m
		d=$((d + 1))
	done
	run_json -s 1f1b -p $p -m $m
	d=0
	while [ $d -lt $p ]; do
		want=$((p - d < m ? p - d : m))
		expect devices.$d.peak_activations $want
		d=$((d + 1))
	done
done

# P2P: one message per micro-batch, stage boundary and direction: 2m(p-1).
for s in 1f1b gpipe; do
	run_json -s $s -p 4 -m 8
	expect p2p.messages 48
	expect p2p.bytes 0
	run_json -s $s -p 4 -m 8 --msg-bytes 33554432
	expect p2p.messages 48
	expect p2p.bytes $((48 * 33554432))
	run_json -s $s -p 8 -m 3 --msg-bytes 33554432
	expect p2p.messages 42
	expect p2p.bytes $((42 * 33554432))
done

# Communication. Overlap: each hop delays its consumer by 0.1 and nothing queues, so 1F1B
# p=4 m=8 takes 33 + 16 x 0.1 = 34.6.
run_json -s 1f1b -p 4 -m 8 --tcomm 0.1
expect makespan 34.6
expect bubble_ratio_theory null
# Blocking: a sender's stream is held until its message arrives. With no queueing, that is zero
# communication with every sending op 0.1 longer: F on devices 0-2 takes 1.1 (device 3 sends no
# F), BW on devices 1-3 takes 2.1 (device 0 sends no gradient). Critical path, worked by hand
# (Fk@d: forward of micro-batch k on device d; Bk@d: its fused backward):
#   F0@0 F0@1 F0@2 F0@3 B0@3 B0@2 B0@1 F3@1 B1@1 F4@1 F4@2 B3@2 F5@2 B4@2 F6@2 B5@2 F7@2 F7@3
#   B7@3 B7@2 B7@1 B7@0
#   = 1.1+1.1+1.1+1 + 2.1+2.1+2.1 + 1.1+2.1+1.1 + 1.1+2.1+1.1+2.1+1.1+2.1+1.1 + 1+2.1 + 2.1+2.1+2
#   = 34.9
# and the held time per device is the number of sends x 0.1: 0.8, 1.6, 1.6, 0.8.
run_json -s 1f1b -p 4 -m 8 --tcomm 0.1 --comm=blocking
expect makespan 34.9
expect devices.0.comm_wait 0.8
expect devices.1.comm_wait 1.6
expect devices.2.comm_wait 1.6
expect devices.3.comm_wait 0.8
expect_cmp makespan ">" 34.6

# A link instead of a fixed time: 32 MiB over 300 GB/s plus 5 us takes
# 0.005 + 33554432 / 300e6 = 0.116848106666... ms; p=2 m=1 sends two such messages, both on the
# critical path of 1 + 1 + 2 + 2 ms of compute. Simulated time has a resolution of 1e-6 unit
# (1 ns here), so each message is 0.116848 ms.
run_json -s 1f1b -p 2 -m 1 --msg-bytes 33554432 --bandwidth 300 --latency 5
expect costs.time_unit ms
expect p2p.messages 2
expect p2p.time 0.233696213 1e-6
expect makespan 6.233696213 1e-6

# Interleaved 1F1B (the source document's example): p=4, v=2, m=8 brings the bubble from 3/11
# to 3/19; chunk ops take t/v, so the makespan is (m*v + p - 1) * 1.5 = 28.5.
run_json -s interleaved -p 4 -v 2 -m 8
expect bubble_ratio 3/19
expect bubble_ratio_theory 3/19
expect makespan 28.5
# Megatron's peak: p(1 + (p-1)/(p*v)) = 5.5 micro-batches on device 0.
expect devices.0.peak_activations 5.5
expect devices.3.peak_activations 2.5
# One message per stage boundary crossing devices, the wrap from the last device back to the
# first included: 2m(pv-1), not the document's 2mv(p-1).
expect p2p.messages 112
run_json -s interleaved -p 4 -v 2 -m 16
expect bubble_ratio 3/35
expect bubble_ratio_theory 3/35
run_json -s interleaved -p 4 -v 4 -m 16 --msg-bytes 33554432
expect p2p.messages 480
expect p2p.bytes $((480 * 33554432))
# m < p (PyTorch accepts it): valid, but groups smaller than p stall, so no closed form.
run_json -s interleaved -p 4 -v 2 -m 3
expect bubble_ratio_theory null
# m = 10 with p = 4: PyTorch's rule (groups of 5) where Megatron-LM's default rejects it.
run_json -s interleaved -p 4 -v 2 -m 10
expect bubble_ratio 3/23
run_json -s interleaved -p 4 -v 2 -m 10 --group-size 5
expect bubble_ratio 3/23

# ZB-H1: makespan m(t_f+t_b+t_w) + (p-1)(t_f+t_b-t_w), at most p micro-batches alive.
run_json -s zbh1 -p 4 -m 8
expect makespan 27
run_json -s zbh1 -p 4 -m 8 --tf 2 --tb 2 --tw 1
expect makespan 49
expect bubble_ratio_theory 9/49
for d in 0 1 2 3; do
	expect_cmp devices.$d.peak_activations "<=" 4
done
run_json -s zbh1 -p 4 -m 8 --tf 2 --tb 2 --tw 1 --w-mem-fraction 1
for d in 0 1 2 3; do
	expect_cmp devices.$d.peak_activations "<=" 4
done

# ZB-H2: m(t_f+t_b+t_w) + (p-1)(t_f+t_b-2t_w) = 40 + 6, at most 2p-1 micro-batches alive.
run_json -s zbh2 -p 4 -m 8 --tf 2 --tb 2 --tw 1
expect makespan 46
for d in 0 1 2 3; do
	expect_cmp devices.$d.peak_activations "<=" 7
done
# With equal times every device is busy from its first op to its last.
run_json -s zbh2 -p 4 -m 8
expect bubble_rate_span 0
expect_cmp bubble_ratio ">" 0
