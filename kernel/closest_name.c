#include "closest_name.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LISTED_INLINE 60

size_t closest_name_distance(const char *a, const char *b)
{
    size_t n = strlen(b), *row = malloc(sizeof(size_t) * (n + 1));
    for (size_t j = 0; j <= n; j++)
        row[j] = j;
    for (size_t i = 1; *a; a++, i++) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= n; j++) {
            size_t above = row[j];
            size_t best = diagonal + (tolower((unsigned char)*a) != tolower((unsigned char)b[j - 1]));
            best = above + 1 < best ? above + 1 : best;
            best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
            row[j] = best;
            diagonal = above;
        }
    }
    size_t d = row[n];
    free(row);
    return d;
}

int closest_name_close(const char *word, size_t distance)
{
    return distance <= strlen(word) / 3;
}

struct guess {
    const char *word;
    char best[64];
    size_t distance, listed;
    int count;
    char known[LISTED_INLINE + 1];
};

static void consider(struct guess *g, const char *name, size_t length)
{
    char copy[64];
    snprintf(copy, sizeof(copy), "%.*s", (int)length, name);
    size_t d = closest_name_distance(g->word, copy);
    if (d < g->distance) {
        g->distance = d;
        snprintf(g->best, sizeof(g->best), "%s", copy);
    }
    g->listed += (g->count ? 2 : 0) + length;
    if (g->listed <= LISTED_INLINE) {
        size_t used = strlen(g->known);
        snprintf(g->known + used, sizeof(g->known) - used, "%s%s", g->count ? ", " : "", copy);
    }
    g->count++;
}

void closest_name_hint(const char *word, const void *table, int n, size_t stride, const char *allowed,
                       const char *listing, char *out, size_t size)
{
    struct guess g = {.word = word, .distance = (size_t)-1};
    if (allowed) {   /* in the list's order, as the generator takes them */
        for (const char *p = allowed + strspn(allowed, " "); *p; p += strspn(p, " ")) {
            size_t length = strcspn(p, " ");
            consider(&g, p, length);
            p += length;
        }
    } else {
        for (int i = 0; i < n; i++) {
            const char *name = *(const char *const *)((const char *)table + (size_t)i * stride);
            consider(&g, name, strlen(name));
        }
    }
    int written = g.count && closest_name_close(word, g.distance) ? snprintf(out, size, "did you mean %s? ", g.best)
                                                                  : 0;
    if (written < 0 || (size_t)written >= size)
        written = 0;
    if (g.listed <= LISTED_INLINE)
        snprintf(out + written, size - (size_t)written, "known: %s", g.known);
    else
        snprintf(out + written, size - (size_t)written, "all %d: %s", g.count, listing);
}
