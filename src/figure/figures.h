/* The figures of a result file: every picture (one per kind of observable,
 * and --show), which of them a file holds, and their descriptions as JSON
 * (`sdekit plot --spec`, sdekit_figure_describe).  What is asked comes as
 * the public API's sdekit_figure_options, from the command line or from a
 * program. */
#ifndef SDK_FIGURE_FIGURES_H
#define SDK_FIGURE_FIGURES_H

#include <sdekit.h>

#include "core/strbuf.h"
#include "figure/picture.h"
#include "figure/plotfile.h"

/* At least as many pictures as there are (arrays of them). */
#define SDK_FIGS_MAX 16

/* The pictures, in the order they are drawn and listed: k in [0, count)
 * named ones, k == count the one of --show. */
int sdk_figs_count(void);
const sdk_picture *sdk_figs_at(int k);
/* The picture called name, or -1. */
int sdk_figs_index(const char *name);
/* Their names: "drift, moments, ..." with `last` before the last. */
void sdk_figs_names(sdk_strbuf *b, const char *last);

/* The options against what the file holds: the variable of var, the grid
 * point of grid, the observable's name. */
sdekit_status sdk_figs_check(const sdk_plotfile *pf, const sdekit_figure_options *o,
                             sdekit_error *err);
/* The pictures drawn (todo, *ntodo of them, at most count + 1): the one
 * asked for (observable, show), or every one the file holds but those drawn
 * on another it holds. */
sdekit_status sdk_figs_choose(const sdk_plotfile *pf, const sdekit_figure_options *o, int *todo,
                              int *ntodo, sdekit_error *err);
/* The description of picture k into *fig (sdk_fig_free it). */
sdekit_status sdk_figs_describe(const sdk_plotfile *pf, const sdekit_figure_options *o, int k,
                                sdk_figure *fig, sdekit_error *err);
/* {"file": FILE, "figures": [...]} of the pictures todo into b. */
sdekit_status sdk_figs_json(const sdk_plotfile *pf, const sdekit_figure_options *o, const int *todo,
                            int ntodo, sdk_strbuf *b, sdekit_error *err);

#endif
