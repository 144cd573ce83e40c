/* The kernel's input file: a CSV header naming every parameter of
 * registry/parameters.csv (any order), then one experiment per line.
 * Empty cells take the parameter's default, or mark a parameter that does
 * not apply (order on a Cartesian topology, msize for create). Every line is
 * checked before anything runs; the first problem is one line naming the
 * file, line, column and reason. */
#ifndef NBH_INPUT_H
#define NBH_INPUT_H

#include <stddef.h>

#include "experiment.h"

struct input_limits {
    int nprocs;
    double max_memory;  /* bytes of buffers per process */
    long max_degree;    /* neighbors per process */
};

struct input {
    struct experiment *experiments;
    int count;
};

/* Parses and checks `text` (the contents of `path`, `size` bytes). Returns 0,
 * or -1 with the message in error. Pure: the same verdict on every process. */
int input_parse(const char *path, const char *text, size_t size, const struct input_limits *limits,
                struct input *out, char *error, size_t error_size);
void input_free(struct input *in);

#endif
