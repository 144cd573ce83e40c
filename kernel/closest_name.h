/* What an unknown name was meant to be: an error names the closest known
 * name and stays one short line; the full list is `nbhbench list`.
 * gen/closest_name.py says the same in the same words, by the same rule:
 * the known name with the fewest single-letter edits (insert, delete,
 * replace; case ignored) from the word, the first in table order among
 * equals, and only where that is at most a third of the word's letters;
 * the known names themselves only where they fit in 60 characters, else
 * where to list them. */
#ifndef NBH_CLOSEST_NAME_H
#define NBH_CLOSEST_NAME_H

#include <stddef.h>

/* Levenshtein distance of a and b, case ignored. */
size_t closest_name_distance(const char *a, const char *b);

/* Whether a name `distance` edits from `word` is close enough to suggest. */
int closest_name_close(const char *word, size_t distance);

/* What follows "unknown ... 'word'" in parentheses: "did you mean NAME? known:
 * A, B, C" or "all N: LISTING", from the n names spaced stride bytes apart
 * in table, or where `allowed` is not NULL from its space-separated names
 * (the topology's orders, say), in their order. */
void closest_name_hint(const char *word, const void *table, int n, size_t stride, const char *allowed,
                       const char *listing, char *out, size_t size);

#endif
