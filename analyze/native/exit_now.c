/* The analysis's last step (analyze/main.R, run_main): the process ends at
 * once, its files written. R's quit() would then run the finalizers
 * (unmapping the value store, which the kernel does anyway), remove the
 * session's temporary directory by starting a shell for `rm -Rf`, and run
 * the libraries' exit handlers: some 20 ms and 0.15 s of CPU at make
 * bench's scale, after everything is done. run_main removes the temporary directory itself.
 *
 * .Call("nbh_exit_now", status): flushes the console and the C streams,
 * then _exit(status). */
#include <stdio.h>
#include <unistd.h>
#include "nbh_analyze.h"

SEXP nbh_exit_now(SEXP status) {
    int code = asInteger(status);
    R_FlushConsole();
    fflush(NULL);
    _exit(code == NA_INTEGER ? 1 : code);
}
