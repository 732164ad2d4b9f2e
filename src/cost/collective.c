/*
 * Collectives priced with the ring algorithm's standard formulas (docs/cost-model.md,
 * Collectives; Thakur, Rabenseifner and Gropp 2005, "Optimization of Collective Communication
 * Operations in MPICH", and NVIDIA's nccl-tests "Performance" notes, whose bus bandwidth is
 * exactly these factors): over n GPUs, each step moves bytes/n to the next GPU of the ring, an
 * all-reduce in 2(n-1) steps (a reduce-scatter, then an all-gather), a reduce-scatter or an
 * all-gather in n-1, an all-to-all sends n-1 blocks of bytes/n; each step pays the link's
 * latency once. The bandwidth is the slowest link a step crosses: the caller picks the link
 * inside a node or, for a group spanning nodes, cost_spanning_bandwidth: NCCL splits a
 * collective over as many rings (channels) as the node has GPUs of the group, and ring i
 * leaves the node through GPU i's own network port (rail-optimised clusters such as DGX
 * SuperPODs give every GPU one), so a group with g GPUs in each node moves data between nodes
 * on g ports at once (NVIDIA, "NCCL: inter-node communication" and nccl-tests' bus bandwidth,
 * which on 8-GPU nodes reaches the node's total network bandwidth, not one port's).
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

double cost_spanning_bandwidth(double inside, double between, int per_node)
{
	double b = (per_node > 1 ? per_node : 1) * between;

	return b < inside ? b : inside;
}

double cost_alltoall_ms(double bytes, int n, int per_node, double inside, double between,
                        double latency)
{
	double near, far;

	if (n <= 1)
		return 0;
	if (per_node >= n)
		return cost_collective_ms(COLL_ALLTOALL, bytes, n, inside, latency);
	near = bytes * (per_node - 1) / n / (inside * 1e6);
	far = bytes * (n - per_node) / n / (between * 1e6);
	return (n - 1) * latency / 1e3 + (near > far ? near : far);
}
