/*
 * Layer layouts: which layers each virtual stage of a pipeline holds, read from and written in
 * the settings of the frameworks that train with them (docs/cost-model.md, Layouts):
 * Megatron-LM's --pipeline-model-parallel-layout string and its first/last-stage flags, and
 * torchtitan's layers per stage and module names per stage; and the split of a layer count over
 * the stages when the user gives none. A layout is plain data (struct layer_layout, no pointers):
 * whoever declares one owns it; the writers fill the caller's buffer.
 */
#ifndef PPSIM_LAYOUT_H
#define PPSIM_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "ppsim/config.h"
#include "ppsim/util.h"

/* Most characters a Megatron layout string may expand to (its repetitions unrolled). */
#define LAYOUT_MAX_EXPANDED (1 << 20)

/*
 * The layers of each virtual stage in model order (stage k of a loop placement sits on device
 * k mod p, Megatron's rank k mod p, chunk k / p). Megatron's order inside a stage is implied:
 * the embedding, then the decoder layers, then the MTP layers, then the loss.
 */
struct layer_layout {
	int S;                      /* virtual stages, 1..PP_MAX_LIST */
	int layers[PP_MAX_LIST];    /* [S] decoder layers (Megatron's t) of each stage */
	int embed;                  /* the stage holding the embedding (E) */
	int loss;                   /* the stage holding the LM head and the loss (L) */
	int mtp_stage;              /* the stage holding the MTP layers (m), -1 when none */
	int mtp;                    /* MTP layers, all on mtp_stage */
};

/*
 * Reads a Megatron-LM layout string (megatron/core/transformer/pipeline_parallel_layer_layout.py,
 * parse_str_to_list and validate_layer_layout) into l: commas are dropped, "(...)*N" then
 * "x*N" unrolled, stages split at '|'; E, t, m and L are the layers. As Megatron validates: one
 * E, first of all layers; one L, last of all; MTP layers after every decoder layer and all in
 * one stage. Checks that need the model or p (the layer and MTP counts, the stages p divides)
 * are the caller's. Returns 0, or -1 with a PP_ERR_USAGE error naming what is wrong (the text is
 * not quoted: the caller's label and value come first).
 */
int layout_parse(const char *text, struct layer_layout *l, struct pp_error *err);

/* Equal layouts: the same stages holding the same layers. */
bool layout_equal(const struct layer_layout *a, const struct layer_layout *b);

/*
 * The layout of S stages of layers[s] decoder layers, the embedding on the first, the loss on
 * the last and mtp MTP layers (0: none) on the last, into l; false, l untouched, when S is not
 * 1..PP_MAX_LIST (a layout holds no more stages).
 */
bool layout_of_counts(struct layer_layout *l, int S, const int *layers, int mtp);

/*
 * Writers. Each writes a NUL-terminated text into buf (n > 0 bytes, cut short when it does not
 * fit, as snprintf) and returns the length of the whole text.
 *
 * layout_megatron: the layout string for --pipeline-model-parallel-layout, runs of equal
 * stages written "(...|)*N" and of 3 or more equal layers "t*N"; layout_parse reads it back
 * to l.
 */
size_t layout_megatron(const struct layer_layout *l, char *buf, size_t n);

/*
 * Megatron's flags that give l over p pipeline ranks without a layout string, into buf (n > 0
 * bytes; 160 are enough), when they can: true, and "" for an even split over p stages, else
 * --num-layers-per-virtual-pipeline-stage for an even split over S > p;
 * --decoder-first-pipeline-num-layers/--decoder-last-pipeline-num-layers when rank 0's chunks
 * all hold one count, rank p-1's another and the middle ranks' a third (Megatron gives a rank's
 * count to each of its chunks alike); --account-for-embedding-in-pipeline-split and
 * --account-for-loss-in-pipeline-split when the first (last) stage holds one layer fewer than
 * the others; --num-virtual-stages-per-pipeline-rank when S > p. Needs the embedding on stage 0,
 * the loss and the MTP layers on stage S-1, and p dividing S; false (and "") when they cannot.
 */
bool layout_megatron_flags(const struct layer_layout *l, int p, char *buf, size_t n);

/*
 * torchtitan's settings for l ([parallelism] of its TOML config): when its own split
 * (torchtitan/distributed/pipeline_parallel.py, _generate_llm_fqn_per_model_part) gives l,
 * "pipeline_parallel_layers_per_stage = N" and the first/last stage's
 * "pipeline_parallel_first_stage_less_layers = A" (and last) when they are not 1; otherwise
 * (or when names is true) "module_fqns_per_model_part = [[...], ...]" with its module names
 * (tok_embeddings, layers.I, norm and lm_head). torchtitan has no MTP module: with MTP layers,
 * writes "" and returns 0.
 */
size_t layout_torchtitan(const struct layer_layout *l, bool names, char *buf, size_t n);

/*
 * Splits layers over S stages by rule (enum pp_layer_split, config.h) into out[S] (all of them
 * on a one-stage pipeline). Returns 0, or -1 when the rule cannot: EVEN when S does not divide
 * layers; TORCHTITAN when the stages outnumber the layers and the embedding and the head
 * (torchtitan refuses empty stages); SPREAD never fails.
 */
int layout_split(int layers, int S, enum pp_layer_split rule, int *out);

/*
 * The layers of each of a route's S virtual stages (of `routes`) from c, for a model of layers
 * decoder and mtp MTP layers named model, into out[S]: c's layout (checked against S and the
 * model, its embedding on the first stage, its loss and MTP layers on the last, as the cost
 * model prices them), or c's layer_split rule when c gives no list of layers and no first or
 * last stage's. Returns 1 when it filled out, 0 when c's list or first/last stage decides
 * (the caller's), -1 with err set by config_fail.
 */
int layout_config_layers(const struct config *c, const char *model, int layers, int mtp, int S,
                         int routes, int *out, struct pp_error *err);

#endif
