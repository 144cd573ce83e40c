/* nbh-kernel: runs the experiments of one input file and writes their
 * timings. See docs/kernel.md for the file formats. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "busy_work.h"
#include "control_variables.h"
#include "dissemination_barrier.h"
#include "experiment_run.h"
#include "graph_inputs.h"
#include "input.h"
#include "operations_report.h"
#include "output.h"
#include "provenance.h"
#include "rounds.h"
#include "sync/start_skew.h"
#include "sync/sync_report.h"

#ifndef NBH_VERSION
#define NBH_VERSION "unknown"
#endif

/* docs/kernel.md: 3 an output cannot be created or written; 4 the same
 * because the file system (or quota) is full. */
enum { EXIT_BAD_INPUT = 2, EXIT_OUTPUT = 3, EXIT_NO_SPACE = 4 };
#define MAX_INPUT_BYTES ((long)NBH_LIMIT_MAX_INPUT_BYTES)
#define MAX_EXPECTED 256

static const char usage[] =
    "usage: nbh-kernel -i INPUT.csv -o PREFIX [--validate] [--max-memory BYTES]\n"
    "                  [--countdown-rate STEPS_PER_US] [--loop-report] [--measure-skew]\n"
    "                  [--sync-each-experiment]\n"
    "       nbh-kernel --calibration-report | --barrier-report | --sync-report | --operations\n"
    "  -i, --input FILE        experiments, one per line (docs/kernel.md)\n"
    "  -o, --output PREFIX     writes PREFIX.results.csv, .prov.json, .cvars.csv,\n"
    "                          .findings.csv (--validate), .seeds.csv (RAND orders),\n"
    "                          .reorder.csv (reorder = 1 experiments), .preparation.csv,\n"
    "                          .ranks.csv (arrival patterns)\n"
    "      --validate          check every received block per sender-receiver edge\n"
    "      --dump-lists        write PREFIX.lists.csv: every process's neighbor lists, as\n"
    "                          computed and as the library reports them\n"
    "      --dump-delays       write PREFIX.delays.csv: the delay the arrival pattern gave\n"
    "                          every process in every repetition\n"
    "      --max-memory BYTES  buffer memory per process an experiment may need\n"
    "                          (default: max_memory of registry/limits.csv, 1 GiB)\n"
    "      --countdown-rate R  busy-work countdown steps per microsecond (default: calibrate)\n"
    "      --expect-cvar NAME[=VALUE]  stop before measuring unless the library has this\n"
    "                          control variable (MCA parameter, CVAR) with this value\n"
    "                          in force; repeatable\n"
    "      --expect-env NAME=VALUE  a library parameter MPI_T cannot see (Intel MPI's\n"
    "                          I_MPI_ADJUST_*): stop unless the processes' environment has\n"
    "                          it; recorded as set, not verifiable; repeatable\n"
    "      --calibration-report  print the countdown rate and how long 100 us and 1 ms of\n"
    "                          calibrated busy work really take, then exit\n"
    "      --barrier-report    print the cost of one dissemination barrier on all\n"
    "                          processes (mean of 2000 calls), then exit\n"
    "      --loop-report       with -i and -o: after each experiment print on stdout what\n"
    "                          the kernel spent per repetition beyond the timed sections\n"
    "                          (barriers, data check, bookkeeping), from time stamps\n"
    "                          around the whole loop on every process (docs/kernel.md)\n"
    "      --measure-skew      measure every experiment's start skew after each round of the\n"
    "                          run, barrier starts too (clock starts: always), into\n"
    "                          PREFIX.preparation.csv\n"
    "      --sync-each-experiment  sync = clock as before issue 37 (make bench compares):\n"
    "                          the model refitted before every experiment round, the skew\n"
    "                          measured after each, no resynchronisation between\n"
    "      --sync-report       print the start skew of barrier and clock starts and the\n"
    "                          clock synchronisation's cost, then exit\n"
    "      --operations        list every operation and whether this build can run it\n"
    "                          (CSV), without a launcher; the only argument\n";

struct options {
    const char *input;
    const char *prefix;
    int validate;
    int dump_lists;
    int dump_delays;
    double max_memory;
    double countdown_rate;  /* 0: calibrate */
    int calibration_report;
    int barrier_report;
    int sync_report;
    int loop_report;
    int measure_skew;
    int sync_each_experiment;
    const char *expected[MAX_EXPECTED];  /* --expect-cvar and --expect-env, in order */
    int env_only[MAX_EXPECTED];          /* 1: from --expect-env */
    int nexpected;
};

/* Every process parses the same arguments and reaches the same verdict;
 * only rank 0 speaks. */
static int parse_options(int argc, char **argv, struct options *o, char *error, size_t size)
{
    static const struct option long_options[] = {
        {"input", required_argument, 0, 'i'},      {"output", required_argument, 0, 'o'},
        {"validate", no_argument, 0, 'v'},         {"max-memory", required_argument, 0, 'm'},
        {"dump-lists", no_argument, 0, 'd'},       {"dump-delays", no_argument, 0, 'D'},
        {"sync-report", no_argument, 0, 's'},
        {"countdown-rate", required_argument, 0, 'r'},
        {"calibration-report", no_argument, 0, 'c'}, {"barrier-report", no_argument, 0, 'b'},
        {"loop-report", no_argument, 0, 'l'},       {"measure-skew", no_argument, 0, 'k'},
        {"expect-cvar", required_argument, 0, 'e'}, {"expect-env", required_argument, 0, 'E'},
        {"sync-each-experiment", no_argument, 0, 'x'}, {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},           {0, 0, 0, 0}};
    *o = (struct options){.max_memory = (double)NBH_LIMIT_MAX_MEMORY};
    opterr = 0;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "i:o:", long_options, NULL)) != -1) {
        switch (c) {
        case 'i': o->input = optarg; break;
        case 'o': o->prefix = optarg; break;
        case 'v': o->validate = 1; break;
        case 'd': o->dump_lists = 1; break;
        case 'D': o->dump_delays = 1; break;
        case 's': o->sync_report = 1; break;
        case 'c': o->calibration_report = 1; break;
        case 'b': o->barrier_report = 1; break;
        case 'l': o->loop_report = 1; break;
        case 'k': o->measure_skew = 1; break;
        case 'x': o->sync_each_experiment = 1; break;
        case 'e':
        case 'E':
            if (o->nexpected == MAX_EXPECTED) {
                snprintf(error, size, "--expect-cvar, --expect-env: more than %d", MAX_EXPECTED);
                return -1;
            }
            if (c == 'E' && (!strchr(optarg, '=') || optarg[0] == '=')) {
                snprintf(error, size, "--expect-env: '%s' is not NAME=VALUE", optarg);
                return -1;
            }
            o->env_only[o->nexpected] = c == 'E';
            o->expected[o->nexpected++] = optarg;
            break;
        case 'm':
            o->max_memory = strtod(optarg, &end);
            if (*end || end == optarg || !isfinite(o->max_memory)) {
                snprintf(error, size, "--max-memory: '%s' is not a number of bytes", optarg);
                return -1;
            }
            if (o->max_memory < NBH_LIMIT_MAX_MEMORY_MIN || o->max_memory > NBH_LIMIT_MAX_MEMORY_MAX) {
                snprintf(error, size, "--max-memory: %s is outside %lld..%lld bytes (registry/limits.csv: "
                         "max_memory)", optarg, NBH_LIMIT_MAX_MEMORY_MIN, NBH_LIMIT_MAX_MEMORY_MAX);
                return -1;
            }
            break;
        case 'r':
            o->countdown_rate = strtod(optarg, &end);
            if (*end || end == optarg || !isfinite(o->countdown_rate)) {
                snprintf(error, size, "--countdown-rate: '%s' is not a number", optarg);
                return -1;
            }
            if (o->countdown_rate < NBH_LIMIT_COUNTDOWN_RATE_MIN ||
                o->countdown_rate > NBH_LIMIT_COUNTDOWN_RATE_MAX) {
                snprintf(error, size, "--countdown-rate: %s is outside %g..%g steps per us "
                         "(registry/limits.csv: countdown_rate)", optarg, (double)NBH_LIMIT_COUNTDOWN_RATE_MIN,
                         (double)NBH_LIMIT_COUNTDOWN_RATE_MAX);
                return -1;
            }
            break;
        case 'h': snprintf(error, size, "%s", usage); return 1;
        case 'V': snprintf(error, size, "nbh-kernel %s\n", NBH_VERSION); return 1;
        default:
            snprintf(error, size, "unknown or incomplete option '%s' (see --help)", argv[optind - 1]);
            return -1;
        }
    }
    if (optind < argc) {
        snprintf(error, size, "unexpected argument '%s' (see --help)", argv[optind]);
        return -1;
    }
    if (!o->calibration_report && !o->barrier_report && !o->sync_report && (!o->input || !o->prefix)) {
        snprintf(error, size, "both -i INPUT and -o PREFIX are required (see --help)");
        return -1;
    }
    return 0;
}

/* Rank 0 reads the file and sends it to everyone, so every process parses
 * the same bytes. A file that cannot be read travels as its error. */
static char *read_everywhere(const char *path, MPI_Comm comm, long *size, char *error, size_t esize)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    char *text = NULL;
    long length = -1;
    if (rank == 0) {
        FILE *f = fopen(path, "rb");
        if (!f) {
            snprintf(error, esize, "%s: cannot open: %s", path, strerror(errno));
        } else {
            text = malloc(MAX_INPUT_BYTES + 1);
            length = (long)fread(text, 1, MAX_INPUT_BYTES + 1, f);
            if (ferror(f)) {
                snprintf(error, esize, "%s: cannot read: %s", path, strerror(errno));
                length = -1;
            } else if (length > MAX_INPUT_BYTES) {
                snprintf(error, esize, "%s: larger than %ld bytes; split it into several runs", path,
                         MAX_INPUT_BYTES);
                length = -1;
            }
            fclose(f);
        }
    }
    MPI_Bcast(&length, 1, MPI_LONG, 0, comm);
    if (length < 0) {
        free(text);
        return NULL;
    }
    if (rank != 0)
        text = malloc((size_t)length + 1);
    MPI_Bcast(text, (int)length, MPI_CHAR, 0, comm);
    *size = length;
    return text;
}

/* Ends every process the same way: one line from rank 0, then exit. */
static int finish(int rank, int code, const char *message)
{
    control_variables_stop();
    if (rank == 0 && message && *message)
        fprintf(code ? stderr : stdout, code ? "nbh-kernel: %s\n" : "%s", message);
    MPI_Finalize();
    return code;
}

/* Whether the environment has control variable NAME set to VALUE, as
 * itself (MPICH's MPIR_CVAR_...) or as Open MPI's OMPI_MCA_NAME. */
static int variable_in_environment(const char *name, const char *value)
{
    char mca[600];
    snprintf(mca, sizeof(mca), "OMPI_MCA_%s", name);
    const char *found = getenv(name) ? getenv(name) : getenv(mca);
    return value && found && strcmp(found, value) == 0;
}

/* A library parameter of the run's set that the library does not know is
 * almost always a typo, and one not in force was not passed on: either
 * way the run would measure something else than it says. Stop before
 * measuring. Rank 0 asks MPI_T; everyone gets the verdict; the values in
 * force go into the provenance. */
static int check_expected_variables(const struct options *o, MPI_Comm comm, struct provenance *prov,
                                    char *error, size_t size)
{
    int rank, status = 0;
    MPI_Comm_rank(comm, &rank);
    for (int i = 0; rank == 0 && i < o->nexpected && status == 0; i++) {
        char name[512], hint[512], *in_force = prov->parameters[i].in_force;
        snprintf(name, sizeof(name), "%s", o->expected[i]);
        char *set = strchr(name, '=');
        if (set)
            *set++ = '\0';
        prov->parameters[i].name = o->expected[i];
        prov->parameters[i].not_verifiable = NULL;
        prov->nparameters = i + 1;
        if (o->env_only[i]) {
            /* Not an MPI_T variable: the most we can know is that the
             * processes got it. */
            const char *value = getenv(name);
            if (!value || strcmp(value, set) != 0) {
                snprintf(error, size, "library parameter '%s' is %s%s%s in the processes' environment, not '%s' "
                         "as set (was it passed to the processes?)", name, value ? "'" : "not set", value ? value : "",
                         value ? "'" : "", set);
                status = -1;
            }
            prov->parameters[i].not_verifiable = "not an MPI_T variable (env_only)";
            continue;
        }
        int count;
        int verdict = control_variable_check(name, set, in_force, sizeof(prov->parameters[i].in_force), hint,
                                             sizeof(hint), &count);
        if (verdict == CVAR_DIFFERS && in_force[0] == '\0' && variable_in_environment(name, set)) {
            /* MPICH reads some string CVARs back empty whatever was set
             * (MPIR_CVAR_CH4_NETMOD): nothing to compare with, but the
             * processes got it. */
            prov->parameters[i].not_verifiable = "MPI_T reads it back empty";
            continue;
        }
        if (verdict == CVAR_UNKNOWN) {
            snprintf(error, size, "library parameter '%s' is unknown to this library (none of its %d "
                     "control variables, read through MPI_T%s%s%s)", name, count,
                     hint[0] ? "; did you mean '" : "", hint, hint[0] ? "'?" : "");
            status = -1;
        } else if (verdict == CVAR_DIFFERS) {
            snprintf(error, size, "library parameter '%s' is '%s' in force, not '%s' as set (was it passed "
                     "to the processes?)", name, in_force, set);
            status = -1;
        } else if (verdict == CVAR_UNREADABLE) {
            snprintf(error, size, "library parameter '%s' cannot be read through MPI_T", name);
            status = -1;
        }
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, comm);
    return status;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* How long calibrated busy work really takes: the median of 201 timings. */
static void calibration_report(double rate)
{
    double targets[] = {100.0, 1000.0};
    printf("countdown_rate_per_us %.4f\n", rate);
    for (int t = 0; t < 2; t++) {
        uint64_t steps = countdown_steps(targets[t], rate);
        double times[201];
        for (int i = 0; i < 201; i++) {
            double t0 = MPI_Wtime();
            busy_countdown(steps);
            times[i] = (MPI_Wtime() - t0) * 1e6;
        }
        qsort(times, 201, sizeof(double), compare_doubles);
        printf("work_us %.0f measured_median_us %.2f min_us %.2f error_percent %+.2f\n", targets[t],
               times[100], times[0], 100.0 * (times[100] - targets[t]) / targets[t]);
    }
}

/* The cost of one dissemination barrier: the slowest process's mean. */
static void barrier_report(MPI_Comm comm)
{
    const int calls = 2000;
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    for (int i = 0; i < 100; i++)
        dissemination_barrier(comm);
    double t0 = MPI_Wtime();
    for (int i = 0; i < calls; i++)
        dissemination_barrier(comm);
    double mean = (MPI_Wtime() - t0) / calls, slowest;
    MPI_Reduce(&mean, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    if (rank == 0)
        printf("processes %d barrier_us %.3f\n", p, slowest * 1e6);
}

static int output_exit_code(int err)
{
    return output_error_is_no_space(err) ? EXIT_NO_SPACE : EXIT_OUTPUT;
}

/* Whether the input has an experiment whose processes draw from their
 * seeds: a RAND order, or uniform arrival delays. */
static int has_seeds(const struct input *in)
{
    for (int i = 0; i < in->count; i++)
        if (in->experiments[i].order == ORDER_RAND || in->experiments[i].arrival == ARRIVAL_uniform)
            return 1;
    return 0;
}

/* Whether the input has an arrival pattern: then every experiment with
 * an arrival column gets rows in PREFIX.ranks.csv (its baselines too). */
static int has_arrival(const struct input *in)
{
    for (int i = 0; i < in->count; i++)
        if (in->experiments[i].arrival != ARRIVAL_none)
            return 1;
    return 0;
}

/* Rank 0, before measuring: the tables, the control variables and the first
 * provenance, none over an existing file. On failure nothing is left
 * behind. Returns 0, or the errno with the message. */
static int open_outputs(struct output *out, const struct options *o, const struct input *in,
                        struct provenance *prov, const char *cvars_path, char *error, size_t size)
{
    if (output_open(out, o->prefix, o->validate, o->dump_lists, has_seeds(in), has_arrival(in),
                    o->dump_delays) != 0) {
        snprintf(error, size, "%s", out->error);
        return out->error_number ? out->error_number : EIO;
    }
    size_t length = 0;
    char *cvars = control_variables_csv(&prov->cvars, &length);
    int wrote_cvars = cvars != NULL;
    int status = cvars ? document_write(cvars_path, cvars, length, 1, error, size) : 0;
    int err = errno;
    free(cvars);
    if (status == 0) {
        status = provenance_write(prov, "running", error, size);
        err = errno;
        if (status != 0 && wrote_cvars)
            unlink(cvars_path);
    }
    if (status != 0) {
        output_discard(out);
        return err ? err : EIO;
    }
    return 0;
}

/* Every round of the run (rounds.h): each experiment's part of it, in the
 * round's order; after each round the start skew of its measured starts
 * (sync/start_skew.h: their rows of PREFIX.preparation.csv wait for it),
 * and what rank 0 wrote goes to disk. An experiment is done after its last
 * round. Returns 0, or the errno of an output that could not be written
 * (on every process). */
static int run_rounds(const struct input *in, const struct run_settings *settings, struct output *out,
                      struct provenance *prov)
{
    int rank, status = 0, rounds = rounds_of_input(in);
    MPI_Comm_rank(settings->base, &rank);
    int *order = malloc(sizeof(int) * (size_t)(in->count + 1));
    for (int round = 1; round <= rounds && status == 0; round++) {
        round_order(in, round, order);
        for (int i = 0; i < in->count && status == 0; i++) {
            const struct experiment *e = &in->experiments[order[i]];
            struct round_slot slot = round_slot(e, round);
            if (slot.reps == 0)
                continue;
            long findings = 0;
            status = experiment_run(e, &slot, settings, out, &findings);
            if (status == 0 && settings->sync_each_experiment)
                status = start_skew_flush(settings->base, out);
            if (status == 0) {
                prov->findings += findings;
                prov->experiments_done += round == e->blocks;
            }
        }
        if (status == 0)
            status = start_skew_flush(settings->base, out);
        if (status == 0 && rank == 0)
            status = output_sync(out);
        MPI_Bcast(&status, 1, MPI_INT, 0, settings->base);
    }
    free(order);
    return status;
}

int main(int argc, char **argv)
{
    /* Before MPI_Init: `make` asks this of the binary without a launcher. */
    if (argc == 2 && strcmp(argv[1], "--operations") == 0)
        return operations_report(stdout);
    MPI_Init(&argc, &argv);
    MPI_Comm base = MPI_COMM_WORLD;
    int rank, nprocs;
    MPI_Comm_rank(base, &rank);
    MPI_Comm_size(base, &nprocs);
    char error[8192];
    control_variables_start();

    struct options opt;
    int parsed = parse_options(argc, argv, &opt, error, sizeof(error));
    if (parsed != 0)
        return finish(rank, parsed < 0 ? EXIT_BAD_INPUT : 0, error);

    if (opt.barrier_report) {
        barrier_report(base);
        return finish(rank, 0, NULL);
    }
    if (opt.sync_report) {
        sync_report(base);
        return finish(rank, 0, NULL);
    }

    /* Rank 0 calibrates alone while the others wait: processes sharing a
     * core would disturb each other's measurement. */
    double rate = opt.countdown_rate;
    if (rate == 0 && rank == 0)
        rate = calibrate_countdown_rate();
    MPI_Bcast(&rate, 1, MPI_DOUBLE, 0, base);
    if (opt.calibration_report) {
        if (rank == 0)
            calibration_report(rate);
        return finish(rank, 0, NULL);
    }

    long size = 0;
    char *text = read_everywhere(opt.input, base, &size, error, sizeof(error));
    if (!text)
        return finish(rank, EXIT_BAD_INPUT, error);
    struct input_limits limits = {.nprocs = nprocs, .max_memory = opt.max_memory,
                                  .max_degree = NBH_LIMIT_MAX_DEGREE};
    struct input in;
    int status = input_parse(opt.input, text, (size_t)size, &limits, &in, error, sizeof(error));
    free(text);
    if (status != 0)
        return finish(rank, EXIT_BAD_INPUT, error);
    if (graph_inputs_check(opt.input, &in, &limits, base, error, sizeof(error)) != 0) {
        input_free(&in);
        return finish(rank, EXIT_BAD_INPUT, error);
    }

    char prov_path[4200], cvars_path[4200];
    output_path(opt.prefix, ".prov.json", prov_path, sizeof(prov_path));
    output_path(opt.prefix, ".cvars.csv", cvars_path, sizeof(cvars_path));
    static struct provenance prov;
    prov = (struct provenance){.path = prov_path, .input = opt.input, .prefix = opt.prefix,
                               .countdown_rate = rate, .rate_measured = opt.countdown_rate == 0,
                               .validate = opt.validate, .max_memory = opt.max_memory,
                               .experiments = in.count};
    if (check_expected_variables(&opt, base, &prov, error, sizeof(error)) != 0)
        return finish(rank, EXIT_BAD_INPUT, error);

    static struct output out;
    provenance_collect(&prov, base);
    status = rank == 0 ? open_outputs(&out, &opt, &in, &prov, cvars_path, error, sizeof(error)) : 0;
    MPI_Bcast(&status, 1, MPI_INT, 0, base);
    if (status != 0)
        return finish(rank, output_exit_code(status), error);

    struct run_settings settings = {.base = base, .countdown_rate = rate, .validate = opt.validate,
                                   .dump_lists = opt.dump_lists, .dump_delays = opt.dump_delays,
                                   .ranks = has_arrival(&in), .loop_report = opt.loop_report,
                                   .measure_skew = opt.measure_skew,
                                   .sync_each_experiment = opt.sync_each_experiment};
    status = run_rounds(&in, &settings, &out, &prov);

    provenance_peak_memory(&prov, base);
    if (rank == 0) {
        provenance_now(prov.end_time, sizeof(prov.end_time));
        char message[4400];
        if (status != 0) {
            /* Every finished experiment is kept whole; the provenance says
             * why the run stopped (if there is room to say it). */
            snprintf(error, sizeof(error), "%s", out.error);
            prov.error = error;
            provenance_write(&prov, "stopped", message, sizeof(message));
        } else if (provenance_write(&prov, "complete", message, sizeof(message)) != 0) {
            status = errno;
            snprintf(error, sizeof(error), "%s", message);
        }
        output_close(&out);
        if (prov.findings > 0)
            fprintf(stderr, "nbh-kernel: data check: %ld findings, see %s.findings.csv\n",
                    prov.findings, opt.prefix);
        free(prov.hosts_json);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, base);
    input_free(&in);
    return finish(rank, status ? output_exit_code(status) : 0, status ? error : NULL);
}
