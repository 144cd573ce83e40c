#include "closest_name.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LISTED_INLINE 60

/* Inserts, deletes, replacements and swaps of two neighbouring letters
 * (optimal string alignment distance), case ignored; rows i-2, i-1, i. */
size_t closest_name_distance(const char *a, const char *b)
{
    size_t m = strlen(a), n = strlen(b);
    size_t *rows = malloc(sizeof(size_t) * 3 * (n + 1));
    size_t *before = rows, *row = rows + n + 1, *current = rows + 2 * (n + 1);
    for (size_t j = 0; j <= n; j++)
        row[j] = j;
    for (size_t i = 1; i <= m; i++) {
        int x = tolower((unsigned char)a[i - 1]);
        current[0] = i;
        for (size_t j = 1; j <= n; j++) {
            int y = tolower((unsigned char)b[j - 1]);
            size_t best = row[j - 1] + (x != y);
            best = row[j] + 1 < best ? row[j] + 1 : best;
            best = current[j - 1] + 1 < best ? current[j - 1] + 1 : best;
            if (i > 1 && j > 1 && x == tolower((unsigned char)b[j - 2]) && tolower((unsigned char)a[i - 2]) == y &&
                before[j - 2] + 1 < best)
                best = before[j - 2] + 1;
            current[j] = best;
        }
        size_t *oldest = before;
        before = row;
        row = current;
        current = oldest;
    }
    size_t d = row[n];
    free(rows);
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
