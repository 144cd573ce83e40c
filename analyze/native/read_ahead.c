/* Reading ahead: the results files of the archives an analysis names, read
 * and reduced by a forked reader while R loads its default packages,
 * data.table and the analyzer, some 0.3 s in which the second core had
 * nothing to do (docs/analyze.md). analyze/main.R starts it before
 * anything else; the first run a worker reads (results_file.c) stops it,
 * and a worker takes a file read ahead instead of reading it again.
 *
 * What is read ahead is what the worker would compute: the same routines
 * (read_clean_rows, round_medians_in_slots, medians_of_groups) on the same
 * bytes with the same nrep and blocks of every experiment id. The reader
 * takes those from the archive's experiments.csv; a worker takes a file
 * only if it is the same file (device, inode, size, modification time)
 * and its archive's nrep and blocks, as R read them, are the reader's.
 * Anything else (a file that is not clean, an experiments.csv with quotes
 * or an unexpected column) is left to the workers, as before.
 *
 * The reader is a fork of this process that calls nothing of R: it writes
 * into an anonymous shared mapping made before it forks (as value_store.c
 * does), ends with _exit and dies with its parent (PR_SET_PDEATHSIG). It
 * reads the files last first: the workers take the runs in the archives'
 * order, and so meet the files read ahead at their end.
 *
 * .Call("nbh_read_ahead", archives): archives the archive folders. Starts
 * the reader where this process may use two CPUs or more; returns the
 * number of results files it is to read (0: none started, or started
 * before).
 * .Call("nbh_read_ahead_tally", wait): c(read = files read ahead, taken =
 * files the workers took), so far; with wait TRUE once the reader has
 * ended (it ends when every file is read, or once stopped).
 * .Call("nbh_read_ahead_end"): stops the reader and returns the tally; the
 * read-ahead is over then (a later nbh_read_ahead starts another). */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/wait.h>
#include <unistd.h>
#include "nbh_analyze.h"

#define RESULTS_SUFFIX ".results.csv"

enum { WAITING, READING, READ, LEFT };   /* a file's state, in the shared mapping */

typedef struct {   /* an archive, as the reader and the workers (its forks) see it */
    int *nrep, *blocks;
    int max_id;
    R_xlen_t slots;
} ahead_archive_t;

typedef struct {   /* a results file, in the shared mapping */
    dev_t device;
    ino_t inode;
    off_t size;
    time_t modified;
    int archive, state, groups, rounded;
    R_xlen_t rows, slots;
    size_t at;   /* its values from here in the mapping */
} ahead_file_t;

typedef struct {
    int stop, read, taken, files;
    ahead_file_t file[];
} ahead_header_t;

typedef struct {
    ahead_header_t *shared;
    size_t bytes;
    pid_t reader;
    char **path;   /* the files' paths (paths of them), in this process and its forks */
    int paths;
    ahead_archive_t *archive;
    int archives;
} ahead_state_t;

static ahead_state_t ahead;   /* this process's read-ahead, and its forks' */

/* The whole of a small file, '\0' ended (free it), or NULL. */
static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t size = 0, room = 1 << 16;
    char *text = malloc(room);
    for (size_t got; text && (got = fread(text + size, 1, room - size - 1, f)) > 0;) {
        size += got;
        if (size + 1 == room) {
            char *more = realloc(text, room *= 2);
            if (!more) free(text);
            text = more;
        }
    }
    fclose(f);
    if (text) text[size] = '\0';
    return text;
}

/* A non-negative count of at most 9 digits, from p up to end; -1 if not one. */
static int count_of(const char *p, const char *end) {
    if (p == end || end - p > 9) return -1;
    int v = 0;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9') return -1;
        v = 10 * v + (*p - '0');
    }
    return v;
}

static void forget_archive(ahead_archive_t *a) {
    free(a->nrep);
    free(a->blocks);
    *a = (ahead_archive_t){0};
}

/* The nrep and blocks of every experiment id of DIR/experiments.csv, as
 * nrep_of_id and blocks_of_id (analyze/reduce/reduce_runs.R) make them
 * from the table R reads; 0 where the file is not as the reader expects. */
static int read_experiments(const char *dir, ahead_archive_t *a) {
    char path[4096];
    if (snprintf(path, sizeof path, "%s/experiments.csv", dir) >= (int)sizeof path) return 0;
    char *text = slurp(path);
    if (!text || strpbrk(text, "\"\r")) {
        free(text);
        return 0;
    }
    int columns = 0, id_at = -1, nrep_at = -1, blocks_at = -1, max_id = -1, lines = 0;
    char *line = text;
    for (char *p = line;; p++) {   /* the header */
        if (*p == ',' || *p == '\n' || !*p) {
            size_t n = (size_t)(p - line);
            if (n == 2 && !strncmp(line, "id", 2)) id_at = columns;
            if (n == 4 && !strncmp(line, "nrep", 4)) nrep_at = columns;
            if (n == 6 && !strncmp(line, "blocks", 6)) blocks_at = columns;
            columns++;
            line = p + 1;
            if (*p != ',') break;
        }
    }
    char *body = line;
    if (id_at < 0 || nrep_at < 0 || line[-1] != '\n') {
        free(text);
        return 0;
    }
    /* Two passes: the largest id, then the values. */
    for (int pass = 0; pass < 2; pass++) {
        for (line = body; *line;) {
            int column = 0, id = -1, nrep = -1, blocks = 1;
            char *field = line, *p = line;
            for (;; p++) {
                if (*p != ',' && *p != '\n' && *p) continue;
                if (column == id_at) id = count_of(field, p);
                if (column == nrep_at) nrep = count_of(field, p);
                if (column == blocks_at) blocks = p == field ? 1 : count_of(field, p);
                column++;
                field = p + 1;
                if (*p != ',') break;
            }
            if (column != columns || id < 0 || nrep < 0 || blocks < 1 || *p != '\n') {
                free(text);
                forget_archive(a);
                return 0;
            }
            if (!pass) {
                max_id = id > max_id ? id : max_id;
                lines++;
            } else {
                a->nrep[id] = nrep;
                a->blocks[id] = blocks;
            }
            line = p + 1;
        }
        if (!pass) {
            if (!lines) {
                free(text);
                return 0;
            }
            a->max_id = max_id;
            a->nrep = calloc((size_t)max_id + 1, sizeof(int));
            a->blocks = malloc(((size_t)max_id + 1) * sizeof(int));
            if (!a->nrep || !a->blocks) {
                free(text);
                forget_archive(a);
                return 0;
            }
            for (int k = 0; k <= max_id; k++) a->blocks[k] = 1;
        }
    }
    free(text);
    R_xlen_t *first_round = malloc(((size_t)a->max_id + 2) * sizeof(R_xlen_t));
    if (!first_round) {
        forget_archive(a);
        return 0;
    }
    a->slots = round_slots_of(a->nrep, a->blocks, a->max_id, first_round);
    free(first_round);
    return 1;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The paths of DIR/results/ *.results.csv, by name, appended to *paths. */
static int list_results(const char *dir, char ***paths, int *n) {
    char folder[4096];
    if (snprintf(folder, sizeof folder, "%s/results", dir) >= (int)sizeof folder) return 0;
    DIR *d = opendir(folder);
    if (!d) return 0;
    int first = *n;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name), suffix = strlen(RESULTS_SUFFIX);
        if (len <= suffix || strcmp(e->d_name + len - suffix, RESULTS_SUFFIX)) continue;
        char **more = realloc(*paths, ((size_t)*n + 1) * sizeof(char *));
        char *path = malloc(strlen(folder) + len + 2);
        if (!more || !path) {
            free(path);
            if (more) *paths = more;
            closedir(d);
            return 0;
        }
        *paths = more;
        sprintf(path, "%s/%s", folder, e->d_name);
        (*paths)[(*n)++] = path;
    }
    closedir(d);
    qsort(*paths + first, (size_t)(*n - first), sizeof(char *), by_name);
    return 1;
}

static size_t aligned(size_t bytes) { return (bytes + 63) & ~(size_t)63; }

/* The room a file of `size` bytes may take in the mapping: its times (a
 * line has 6 bytes or more), its round medians, its run medians. */
static size_t room_of(off_t size, const ahead_archive_t *a) {
    size_t ids = (size_t)a->max_id + 1;
    return aligned(((size_t)size / 6 + 1) * sizeof(double)) + aligned((size_t)a->slots * sizeof(double)) +
           7 * aligned(ids * sizeof(double));
}

/* The run medians' arrays of a file whose values begin at base. */
static run_medians_t fields_at(char *base, R_xlen_t rows, R_xlen_t slots, int groups) {
    char *p = base + aligned((size_t)rows * sizeof(double)) + aligned((size_t)slots * sizeof(double));
    size_t step = aligned((size_t)groups * sizeof(double));
    run_medians_t f = {(int *)p, (double *)(p + step), (int *)(p + 2 * step), (double *)(p + 3 * step),
                       (double *)(p + 4 * step), (int *)(p + 5 * step), (int *)(p + 6 * step)};
    return f;
}

/* The reader: each file, last first, until told to stop. No R here. */
static void read_files(void) {
    ahead_header_t *h = ahead.shared;
    size_t next = aligned(sizeof *h + (size_t)h->files * sizeof(ahead_file_t));
    parsed_rows_t p = {0};
    size_t capacity = 0;
    R_xlen_t *first_round = NULL, *next_slot = NULL;
    int first_round_of = -1;
    for (int i = h->files - 1; i >= 0 && !__atomic_load_n(&h->stop, __ATOMIC_RELAXED); i--) {
        ahead_file_t *f = &h->file[i];
        const ahead_archive_t *a = &ahead.archive[f->archive];
        struct stat st;
        __atomic_store_n(&f->state, READING, __ATOMIC_RELAXED);
        if (stat(ahead.path[i], &st) != 0 || st.st_size <= 0 || next + room_of(st.st_size, a) > ahead.bytes) {
            __atomic_store_n(&f->state, LEFT, __ATOMIC_RELEASE);
            continue;
        }
        size_t rows_max = (size_t)st.st_size / 6 + 1, ids = (size_t)a->max_id + 1;
        if (rows_max > capacity) {
            free(p.id), free(p.round), free(p.seconds);
            p.id = malloc(rows_max * sizeof(int));
            p.round = malloc(rows_max * sizeof(int));
            p.seconds = malloc(rows_max * sizeof(double));
            capacity = p.id && p.round && p.seconds ? rows_max : 0;
        }
        if (first_round_of != f->archive) {
            free(p.rows_of_id), free(p.rows_of_round), free(first_round), free(next_slot);
            p.rows_of_id = malloc(ids * sizeof(R_xlen_t));
            p.rows_of_round = malloc(((size_t)a->slots + 1) * sizeof(R_xlen_t));
            p.first_round = first_round = malloc((ids + 1) * sizeof(R_xlen_t));
            next_slot = malloc(((size_t)(a->slots > a->max_id ? a->slots : a->max_id) + 1) * sizeof(R_xlen_t));
            first_round_of = f->archive;
            if (first_round) round_slots_of(a->nrep, a->blocks, a->max_id, first_round);
        }
        if (!capacity || !p.rows_of_id || !p.rows_of_round || !first_round || !next_slot) break;
        memset(p.rows_of_id, 0, ids * sizeof(R_xlen_t));
        memset(p.rows_of_round, 0, ((size_t)a->slots + 1) * sizeof(R_xlen_t));
        int rounded = 0;
        R_xlen_t rows = read_clean_rows(ahead.path[i], (size_t)st.st_size, a->nrep, a->blocks, a->max_id, &p, &rounded);
        if (rows <= 0) {
            __atomic_store_n(&f->state, LEFT, __ATOMIC_RELEASE);
            continue;
        }
        /* as results_file.c's read_run_medians: with rounds by slot, else by id */
        char *base = (char *)h + next;
        int groups = groups_of(p.rows_of_id, a->max_id);
        R_xlen_t slots = rounded ? a->slots : 0;
        if (rounded) {
            round_medians_in_slots(p.id, p.round, p.seconds, rows, first_round, slots, p.rows_of_round,
                                   (double *)base, (double *)(base + aligned((size_t)rows * sizeof(double))), NULL,
                                   next_slot);
        } else {
            group_by_id(p.id, p.seconds, rows, a->max_id, p.rows_of_id, (double *)base, next_slot);
        }
        medians_of_groups((double *)base, a->max_id, p.rows_of_id, fields_at(base, rows, slots, groups));
        f->device = st.st_dev;
        f->inode = st.st_ino;
        f->size = st.st_size;
        f->modified = st.st_mtime;
        f->rows = rows;
        f->rounded = rounded;
        f->slots = slots;
        f->groups = groups;
        f->at = next;
        next += room_of(st.st_size, a);
        __atomic_add_fetch(&h->read, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&f->state, READ, __ATOMIC_RELEASE);
    }
}

/* Frees what this process knows of its read-ahead: it is over. */
static void forget(void) {
    if (ahead.shared) munmap(ahead.shared, ahead.bytes);
    for (int i = 0; i < ahead.paths; i++) free(ahead.path[i]);
    free(ahead.path);
    for (int a = 0; ahead.archive && a < ahead.archives; a++) forget_archive(&ahead.archive[a]);
    free(ahead.archive);
    ahead = (ahead_state_t){0};
}

/* The CPUs this process may run on. */
static int usable_cpus(void) {
#ifdef __linux__
    cpu_set_t cpus;
    if (sched_getaffinity(0, sizeof cpus, &cpus) == 0) return CPU_COUNT(&cpus);
#endif
    return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

SEXP nbh_read_ahead(SEXP archives) {
    if (!isString(archives)) error("nbh_read_ahead: the archive folders expected");
    if (ahead.archive || usable_cpus() < 2) return ScalarInteger(0);
    int n = (int)XLENGTH(archives), files = 0;
    ahead.archive = calloc((size_t)n + 1, sizeof(ahead_archive_t));
    ahead.archives = ahead.archive ? n : 0;
    int *archive_of = NULL;
    size_t bytes = 0;
    for (int a = 0; a < ahead.archives; a++) {
        const char *dir = R_ExpandFileName(translateChar(STRING_ELT(archives, a)));
        int before = files;
        int *more = NULL;
        if (!read_experiments(dir, &ahead.archive[a])) continue;
        int listed = list_results(dir, &ahead.path, &ahead.paths);
        files = ahead.paths;
        if (!listed || !(more = realloc(archive_of, ((size_t)files + 1) * sizeof(int)))) {
            files = before;
            break;
        }
        archive_of = more;
        for (int i = before; i < files; i++) {
            struct stat st;
            archive_of[i] = a;
            bytes += stat(ahead.path[i], &st) == 0 ? room_of(st.st_size, &ahead.archive[a]) : 0;
        }
    }
    pid_t parent = getpid(), reader = -1;
    if (files) {
        bytes += aligned(sizeof(ahead_header_t) + (size_t)files * sizeof(ahead_file_t));
        ahead_header_t *h = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (h != MAP_FAILED) {
            ahead.shared = h;
            ahead.bytes = bytes;
            h->files = files;
            for (int i = 0; i < files; i++) h->file[i] = (ahead_file_t){.archive = archive_of[i], .state = WAITING};
            reader = fork();
        }
        if (reader == 0) {
#ifdef __linux__
            prctl(PR_SET_PDEATHSIG, SIGKILL);   /* the analysis stopped: so does its reader */
#endif
            if (getppid() == parent) read_files();
            _exit(0);
        }
    }
    free(archive_of);
    if (reader < 0) {   /* nothing started: nothing kept */
        forget();
        return ScalarInteger(0);
    }
    ahead.reader = reader;
    return ScalarInteger(files);
}

int read_ahead_take(const struct stat *file, const int *nrep, const int *blocks, int max_id, int stored,
                    int rounds_stored, read_ahead_file_t *found) {
    ahead_header_t *h = ahead.shared;
    if (!h) return 0;
    __atomic_store_n(&h->stop, 1, __ATOMIC_RELAXED);
    if (!stored) return 0;
    for (int i = 0; i < h->files; i++) {
        ahead_file_t *f = &h->file[i];
        if (__atomic_load_n(&f->state, __ATOMIC_ACQUIRE) != READ || f->inode != file->st_ino ||
            f->device != file->st_dev || f->size != file->st_size || f->modified != file->st_mtime) {
            continue;
        }
        const ahead_archive_t *a = &ahead.archive[f->archive];
        size_t ids = (size_t)max_id + 1;
        if ((f->rounded && !rounds_stored) || a->max_id != max_id || memcmp(a->nrep, nrep, ids * sizeof(int)) ||
            memcmp(a->blocks, blocks, ids * sizeof(int))) {
            return 0;
        }
        char *base = (char *)h + f->at;
        *found = (read_ahead_file_t){f->rounded, f->rows, f->slots, f->groups, (const double *)base,
                                     (const double *)(base + aligned((size_t)f->rows * sizeof(double))),
                                     fields_at(base, f->rows, f->slots, f->groups)};
        __atomic_add_fetch(&h->taken, 1, __ATOMIC_RELAXED);
        return 1;
    }
    return 0;
}

/* c(read = files read ahead, taken = files the workers took). */
static SEXP tally(void) {
    SEXP out = PROTECT(allocVector(INTSXP, 2));
    SEXP names = PROTECT(allocVector(STRSXP, 2));
    SET_STRING_ELT(names, 0, mkChar("read"));
    SET_STRING_ELT(names, 1, mkChar("taken"));
    setAttrib(out, R_NamesSymbol, names);
    ahead_header_t *h = ahead.shared;
    INTEGER(out)[0] = h ? __atomic_load_n(&h->read, __ATOMIC_RELAXED) : 0;
    INTEGER(out)[1] = h ? __atomic_load_n(&h->taken, __ATOMIC_RELAXED) : 0;
    UNPROTECT(2);
    return out;
}

SEXP nbh_read_ahead_tally(SEXP wait) {
    if (asLogical(wait) == TRUE && ahead.reader > 0) {
        waitpid(ahead.reader, NULL, 0);
        ahead.reader = -1;
    }
    return tally();
}

SEXP nbh_read_ahead_end(void) {
    if (ahead.shared) __atomic_store_n(&ahead.shared->stop, 1, __ATOMIC_RELAXED);
    SEXP out = PROTECT(nbh_read_ahead_tally(ScalarLogical(TRUE)));
    forget();
    UNPROTECT(1);
    return out;
}
