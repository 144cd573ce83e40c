#include "provenance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "arrival.h"
#include "host_layout.h"
#include "rounds.h"
#include "seeds.h"
#include "sync/clock_model.h"
#include "whole_output.h"

#ifndef NBH_VERSION
#define NBH_VERSION "unknown"
#endif
#ifndef NBH_LIBRARY
#define NBH_LIBRARY "unknown"
#endif

extern char **environ;

void provenance_now(char *out, size_t size)
{
    time_t t = time(NULL);
    struct tm utc;
    gmtime_r(&t, &utc);
    strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &utc);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void provenance_collect(struct provenance *p, MPI_Comm comm)
{
    int len;
    MPI_Comm_size(comm, &p->nprocs);
    MPI_Get_library_version(p->library_version, &len);
    MPI_Get_version(&p->mpi_version, &p->mpi_subversion);
    MPI_Query_thread(&p->thread_level);
    provenance_now(p->start_time, sizeof(p->start_time));
    p->hosts_json = host_layout_json(comm);
    MPI_Comm node;
    int local, first;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    first = local == 0;
    MPI_Allreduce(&first, &p->shared_memory_nodes, 1, MPI_INT, MPI_SUM, comm);
    MPI_Comm_free(&node);
}

/* Settings the launcher passes to its own processes, not the user's (Open
 * MPI's mpirun, Hydra's proxies, Intel MPI's CPU description). */
static int launcher_internal(const char *variable)
{
    const char *internal[] = {"OMPI_MCA_orte_", "OMPI_MCA_ess", "OMPI_MCA_pmix", "OMPI_MCA_initial_wdir",
                              "OMPI_MCA_shmem_RUNTIME_QUERY_hint", "OMPI_MCA_mpi_oversubscribe",
                              "OMPI_MCA_PREFIXES=", "OMPI_MCA_num_procs=", "OMPI_MCA_cpu_type=",
                              "HYDRA_BSTRAP_", "HYDRA_LAUNCH_TYPE=", "I_MPI_INFO_", "I_MPI_HYDRA_UUID="};
    for (size_t i = 0; i < sizeof(internal) / sizeof(internal[0]); i++)
        if (strncmp(variable, internal[i], strlen(internal[i])) == 0)
            return 1;
    return 0;
}

/* Library settings that came through the environment of rank 0: every
 * MPI-related variable (Open MPI and its runtime PRRTE/PMIx, MPICH, Intel
 * MPI, libfabric, UCX, Hydra, preloads), the Slurm job, nbhbench's own. */
static void environment_json(FILE *f)
{
    const char *prefixes[] = {"OMPI_MCA_", "PRTE_MCA_", "PMIX_MCA_", "MPIR_CVAR_", "MPICH_", "I_MPI_",
                              "FI_", "UCX_", "HYDRA_", "LD_PRELOAD=", "SLURM_JOB_ID=", "SLURM_JOB_NODELIST=",
                              "NBH_"};
    int first = 1;
    fputc('{', f);
    for (char **v = environ; *v; v++) {
        if (launcher_internal(*v))
            continue;
        for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
            if (strncmp(*v, prefixes[i], strlen(prefixes[i])) != 0)
                continue;
            const char *eq = strchr(*v, '=');
            if (!eq)
                break;
            char key[256];
            snprintf(key, sizeof(key), "%.*s", (int)(eq - *v), *v);
            fputs(first ? "\n    " : ",\n    ", f);
            json_string(f, key);
            fputs(": ", f);
            json_string(f, eq + 1);
            first = 0;
            break;
        }
    }
    fputs(first ? "}" : "\n  }", f);
}

void provenance_peak_memory(struct provenance *p, MPI_Comm comm)
{
    struct rusage usage;
    struct {
        long kib;
        int rank;
    } mine = {0, 0}, largest;
    MPI_Comm_rank(comm, &mine.rank);
    if (getrusage(RUSAGE_SELF, &usage) == 0)
        mine.kib = usage.ru_maxrss;  /* Linux: KiB */
    MPI_Reduce(&mine, &largest, 1, MPI_LONG_INT, MPI_MAXLOC, 0, comm);
    if (mine.rank == 0) {
        p->peak_rss_kib = largest.kib;
        p->peak_rss_rank = largest.rank;
    }
}

int provenance_write(struct provenance *p, const char *status, char *error, size_t size)
{
    char *text = NULL;
    size_t length = 0;
    FILE *f = open_memstream(&text, &length);
    fprintf(f, "{\n  \"status\": ");
    json_string(f, status);
    if (p->error) {
        fprintf(f, ",\n  \"error\": ");
        json_string(f, p->error);
    }
    fprintf(f, ",\n  \"kernel_version\": ");
    json_string(f, NBH_VERSION);
    fprintf(f, ",\n  \"library\": ");
    json_string(f, NBH_LIBRARY);
    fprintf(f, ",\n  \"library_version\": ");
    json_string(f, p->library_version);
    fprintf(f, ",\n  \"mpi_version\": \"%d.%d\"", p->mpi_version, p->mpi_subversion);
    const char *levels[] = {"single", "funneled", "serialized", "multiple"};
    int level = p->thread_level == MPI_THREAD_SINGLE       ? 0
                : p->thread_level == MPI_THREAD_FUNNELED   ? 1
                : p->thread_level == MPI_THREAD_SERIALIZED ? 2 : 3;
    fprintf(f, ",\n  \"thread_level\": \"%s\"", levels[level]);
    fprintf(f, ",\n  \"nprocs\": %d", p->nprocs);
    fprintf(f, ",\n  \"hosts\": %s", p->hosts_json ? p->hosts_json : "[]");
    fprintf(f, ",\n  \"shared_memory_nodes\": %d", p->shared_memory_nodes);
    fprintf(f, ",\n  \"start_time\": ");
    json_string(f, p->start_time);
    fprintf(f, ",\n  \"end_time\": ");
    if (p->end_time[0])
        json_string(f, p->end_time);
    else
        fputs("null", f);
    fprintf(f, ",\n  \"input\": ");
    json_string(f, p->input);
    fprintf(f, ",\n  \"prefix\": ");
    json_string(f, p->prefix);
    fprintf(f, ",\n  \"experiments\": %d,\n  \"experiments_done\": %d", p->experiments,
            p->experiments_done);
    fprintf(f, ",\n  \"countdown_rate_per_us\": %.4f,\n  \"countdown_rate_source\": \"%s\"",
            p->countdown_rate, p->rate_measured ? "calibrated" : "given");
    fprintf(f, ",\n  \"validate\": %s,\n  \"findings\": %ld", p->validate ? "true" : "false", p->findings);
    fprintf(f, ",\n  \"max_memory_bytes\": %.0f", p->max_memory);
    if (p->peak_rss_kib > 0)
        fprintf(f, ",\n  \"peak_rss_kib\": %ld,\n  \"peak_rss_rank\": %d", p->peak_rss_kib, p->peak_rss_rank);
    else
        fprintf(f, ",\n  \"peak_rss_kib\": null,\n  \"peak_rss_rank\": null");
    fprintf(f, ",\n  \"seed_formula\": ");
    json_string(f, NBH_SEED_FORMULA);
    fprintf(f, ",\n  \"round_seed_formula\": ");
    json_string(f, NBH_ROUND_SEED_FORMULA);
    fprintf(f, ",\n  \"arrival_formula\": ");
    json_string(f, NBH_ARRIVAL_FORMULA);
    fprintf(f, ",\n  \"round_order_formula\": ");
    json_string(f, NBH_ROUND_ORDER_FORMULA);
    fprintf(f, ",\n  \"clock_sync\": ");
    json_string(f, NBH_CLOCK_SYNC_METHOD);
    fprintf(f, ",\n  \"control_variables\": %d", p->cvars);
    fprintf(f, ",\n  \"library_parameters\": [");
    for (int i = 0; i < p->nparameters; i++) {
        const char *eq = strchr(p->parameters[i].name, '=');
        fprintf(f, "%s\n    {\"name\": \"%.*s\", \"set\": ", i ? "," : "",
                (int)(eq ? eq - p->parameters[i].name : (long)strlen(p->parameters[i].name)), p->parameters[i].name);
        if (eq)
            json_string(f, eq + 1);
        else
            fputs("null", f);
        fputs(", \"in_force\": ", f);
        json_string(f, p->parameters[i].in_force);
        fputs(", \"check\": ", f);
        json_string(f, p->parameters[i].not_verifiable ? "set, not verifiable" : "in force");
        if (p->parameters[i].not_verifiable) {
            fputs(", \"why\": ", f);
            json_string(f, p->parameters[i].not_verifiable);
        }
        fputc('}', f);
    }
    fputs(p->nparameters ? "\n  ]" : "]", f);
    fprintf(f, ",\n  \"environment\": ");
    environment_json(f);
    fprintf(f, "\n}\n");
    fclose(f);
    int status_code = document_write(p->path, text, length, !p->written, error, size);
    free(text);
    if (status_code == 0)
        p->written = 1;
    return status_code;
}
