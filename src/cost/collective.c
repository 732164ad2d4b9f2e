/*
 * Collectives priced with the ring algorithm's standard formulas (docs/cost-model.md,
 * Collectives; Thakur, Rabenseifner and Gropp 2005, "Optimization of Collective Communication
 * Operations in MPICH", and NVIDIA's nccl-tests "Performance" notes, whose bus bandwidth is
 * exactly these factors): over n GPUs, each step moves bytes/n to the next GPU of the ring, an
 * all-reduce in 2(n-1) steps (a reduce-scatter, then an all-gather), a reduce-scatter or an
 * all-gather in n-1, an all-to-all sends n-1 blocks of bytes/n; each step pays the link's
 * latency once. The bandwidth is the slowest link a step crosses: the caller picks the link
 * inside a node or between nodes for the group it prices.
 */
#include "ppsim/cost.h"

double cost_collective_ms(enum cost_collective kind, double bytes, int n, double bandwidth,
                          double latency)
{
	double steps;

	if (n <= 1)
		return 0;
	steps = kind == COLL_ALLREDUCE ? 2.0 * (n - 1) : (double)(n - 1);
	return steps * latency / 1e3 + steps / n * bytes / (bandwidth * 1e6);
}

double cost_allreduce_ms(double bytes, int n, double bandwidth, double latency)
{
	return cost_collective_ms(COLL_ALLREDUCE, bytes, n, bandwidth, latency);
}
