/* The k-th smallest of an array, in place (0-based k; a[0..n-1]
 * rearranged so that every element before index k is not larger and every
 * one after it not smaller): Wirth's selection, and a partition without
 * branches on the data (select_by_partition), which a processor does in
 * about a third of Wirth's time on random data, whose comparisons it
 * cannot predict; Wirth's where ties leave the partition stuck. */
#include "nbh_analyze.h"

double select_wirth(double *a, R_xlen_t n, R_xlen_t k) {
    R_xlen_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = a[k];
        R_xlen_t i = lo, j = hi;
        do {
            while (a[i] < pivot) i++;
            while (pivot < a[j]) j--;
            if (i <= j) {
                double t = a[i];
                a[i++] = a[j];
                a[j--] = t;
            }
        } while (i <= j);
        if (j < k) lo = i;
        if (k < i) hi = j;
    }
    return a[k];
}

/* Moves the elements of a[0..n-1] below the pivot (or_equal: not above
 * it) to the front, the order of the rest as it comes; returns how many
 * there are. Every element is swapped, and only the count depends on the
 * comparison: no branch to mispredict on random data. */
static R_xlen_t partition_below(double *a, R_xlen_t n, double pivot, int or_equal) {
    R_xlen_t below = 0;
    if (or_equal) {
        for (R_xlen_t i = 0; i < n; i++) {
            double v = a[i];
            a[i] = a[below];
            a[below] = v;
            below += v <= pivot;
        }
    } else {
        for (R_xlen_t i = 0; i < n; i++) {
            double v = a[i];
            a[i] = a[below];
            a[below] = v;
            below += v < pivot;
        }
    }
    return below;
}

static double median_of_three(double a, double b, double c) {
    if (a > b) {
        double t = a;
        a = b;
        b = t;
    }
    return c <= a ? a : c >= b ? b : c;
}

double select_by_partition(double *a, R_xlen_t n, R_xlen_t k) {
    R_xlen_t lo = 0, hi = n;   /* the k-th is in a[lo..hi-1]; below lo smaller or equal, from hi larger or equal */
    int stuck = 0;
    while (hi - lo > 16) {
        double pivot = median_of_three(a[lo], a[lo + (hi - lo) / 2], a[hi - 1]);
        R_xlen_t below = lo + partition_below(a + lo, hi - lo, pivot, 0);
        if (k < below) {
            stuck += below - lo > (hi - lo) * 7 / 8;
            hi = below;
        } else {   /* the pivot and what equals it, first among the rest */
            R_xlen_t equal = below + partition_below(a + below, hi - below, pivot, 1);
            if (k < equal) return a[k];
            stuck += hi - equal > (hi - lo) * 7 / 8;
            lo = equal;
        }
        if (stuck > 2) break;   /* three pivots left almost everything (ties): Wirth's for the rest */
    }
    return select_wirth(a + lo, hi - lo, k - lo);
}
