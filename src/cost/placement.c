/*
 * Where a model's groups of GPUs sit on the nodes (docs/cost-model.md, Collectives): whether a
 * pipeline hop stays inside a node, and how few GPUs of a data-, context- or expert-parallel
 * group one node holds, which sets the ports its collective leaves the node on. GPUs are laid
 * out tp innermost, then cp x dp, then pp (Megatron-LM's default order).
 */
#include "cost_internal.h"

/*
 * Whether every data-parallel replica's hop between pipeline ranks d and e stays inside one
 * node. Ranks are laid out tp innermost, then dp, then pp (Megatron-LM's default order): GPU
 * (d * dp + r) * tp + j is TP rank j of replica r on pipeline rank d. Residues repeat within
 * gpus_per_node replicas, so that many suffice.
 */
bool cost_hop_inside(const struct cost_model *k, int d, int e)
{
	long long g = k->gpus_per_node, span = (long long)k->tp * k->cp * k->dp;
	long long reps = (long long)k->cp * k->dp, n = reps < g ? reps : g;

	for (long long r = 0; r < n; r++)
		for (long long j = 0; j < k->tp; j += k->tp - 1 > 0 ? k->tp - 1 : 1) {
			long long a = d * span + r * k->tp + j, b = e * span + r * k->tp + j;

			if (a / g != b / g)
				return false;
		}
	return true;
}

/* The fewest GPUs one node holds of a group of n GPUs stride apart from GPU first (the data-
 * and context-parallel groups are tp apart): the ring leaves that node on that many ports. */
static int group_per_node(const struct cost_model *k, long long first, int stride, int n)
{
	long long g = k->gpus_per_node, full = g / stride;
	long long head = (g - first % g + stride - 1) / stride, rest, fewest;

	if (full < 1)
		return 1;
	fewest = head < n ? head : n;
	rest = n - fewest;
	if (rest >= full && full < fewest)
		fewest = full;
	if (rest % full != 0 && rest % full < fewest)
		fewest = rest % full;
	return fewest < 1 ? 1 : (int)fewest;
}

/*
 * The fewest GPUs one node holds of any group of n GPUs stride apart in the pipeline rank whose
 * tp x cp x dp GPUs start at GPU first (the groups tile the rank in blocks of stride x n GPUs,
 * stride groups a block): the group whose exchange leaves its nodes on the fewest ports, which
 * every GPU of the rank waits for. n when every group sits inside a node.
 */
int cost_fewest_in_rank(const struct cost_model *k, long long first, int stride, int n)
{
	long long span = (long long)k->tp * k->cp * k->dp, block = (long long)stride * n;
	long long node = k->gpus_per_node;
	int fewest = n;

	/* a rank that starts on a node's first GPU, of blocks that divide a node or are whole
	 * nodes: every group sits as the first one does */
	if (first % node == 0 && span % node == 0 && (node % block == 0 || block % node == 0))
		return group_per_node(k, first, stride, n);
	for (long long b = 0; b + block <= span && fewest > 1; b += block)
		for (int t = 0; t < stride && fewest > 1; t++) {
			int g = group_per_node(k, first + b + t, stride, n);

			fewest = g < fewest ? g : fewest;
		}
	return fewest;
}

/* cost_fewest_in_rank over every pipeline rank: the group of the step that every GPU waits for. */
int cost_fewest_per_node(const struct cost_model *k, int stride, int n)
{
	long long span = (long long)k->tp * k->cp * k->dp;
	int fewest = n;

	for (int d = 0; d < k->p && fewest > 1; d++) {
		int g = cost_fewest_in_rank(k, (long long)d * span, stride, n);

		fewest = g < fewest ? g : fewest;
	}
	return fewest;
}
