# Shell functions shared by the nbhbench commands (sourced, not run).
# shellcheck shell=bash

: "${NBH_ROOT:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
export NBH_ROOT
NBH_BUILD=${NBH_BUILD:-$NBH_ROOT/build}
NBH_PYTHON=${NBH_PYTHON:-$NBH_ROOT/.venv/bin/python}

# nbh_die CODE MESSAGE: one line on stderr, then exit with CODE.
nbh_die() {
    local code=$1
    shift
    printf 'nbhbench: %s\n' "$*" >&2
    exit "$code"
}

# nbh_warn MESSAGE: one line on stderr.
nbh_warn() {
    printf 'nbhbench: %s\n' "$*" >&2
}

# The comment block after the shebang of libexec/nbhbench-CMD, without '# '.
nbh_help_text() {
    local script="$NBH_ROOT/libexec/nbhbench-$1"
    [ -f "$script" ] || nbh_die 2 "no such command '$1' (see: nbhbench help)"
    sed -n '2,/^[^#]/{/^#/!q;s/^# \{0,1\}//;p}' "$script"
}

nbh_print_help() {
    nbh_help_text "$1" | grep -v '^Summary:'
}

# One line per command: its name and the Summary: line of its help.
nbh_print_commands() {
    echo "usage: nbhbench COMMAND [ARGS]   (nbhbench help COMMAND, or COMMAND --help)"
    echo
    local script name
    for script in "$NBH_ROOT"/libexec/nbhbench-*; do
        name=${script##*/nbhbench-}
        printf '  %-12s %s\n' "$name" "$(nbh_help_text "$name" | sed -n 's/^Summary: //p')"
    done
}

# nbh_closest_command WORD: the command WORD was likely meant to be
# (gen/closest_name.py's rule), or nothing.
nbh_closest_command() {
    local -a names=()
    local script
    for script in "$NBH_ROOT"/libexec/nbhbench-*; do
        names+=("${script##*/nbhbench-}")
    done
    [ -x "$NBH_PYTHON" ] || return 0
    (cd "$NBH_ROOT" && "$NBH_PYTHON" -m gen.closest_name "$1" "${names[@]}" 2>/dev/null) || true
}

# nbh_help_if_asked CMD ARGS...: prints the help of CMD and exits if ARGS ask.
nbh_help_if_asked() {
    local command=$1 arg
    shift
    for arg in "$@"; do
        case "$arg" in
        -h | --help)
            nbh_print_help "$command"
            exit 0
            ;;
        esac
    done
}

# nbh_first_word WORDS: the first of shell words (an environment's mpicc,
# quotes honoured: '/home/me/My Projects/nbhbench'/.mpi/mpich5/bin/mpicc).
nbh_first_word() {
    local -a words
    eval "words=($1)"
    printf '%s\n' "${words[0]:-}"
}

# nbh_require_integer NAME VALUE MIN [MAX]: dies unless VALUE is an integer in range.
nbh_require_integer() {
    local name=$1 value=$2 min=$3 max=${4:-}
    [[ $value =~ ^[0-9]+$ ]] || nbh_die 2 "$name: '$value' is not a non-negative integer"
    ((10#$value >= min)) || nbh_die 2 "$name: $value is below $min"
    [ -z "$max" ] || ((10#$value <= max)) || nbh_die 2 "$name: $value is above $max"
}

# nbh_limit NAME COLUMN: a cell (min, max, default, unit) of the bound NAME
# in registry/limits.csv, the one list of numeric bounds (docs/robustness.md).
nbh_limit() {
    awk -F, -v name="$1" -v column="$2" '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == column) c = i; next }
        $1 == name && c { print $c; found = 1; exit }
        END { exit !found }' "$NBH_ROOT/registry/limits.csv"
}

# nbh_require_bounded OPTION VALUE NAME: dies unless VALUE is a number within
# the bound NAME of registry/limits.csv.
nbh_require_bounded() {
    local low high
    [[ $2 =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$ ]] || nbh_die 2 "$1: '$2' is not a number"
    if ! low=$(nbh_limit "$3" min) || ! high=$(nbh_limit "$3" max); then
        nbh_die 1 "registry/limits.csv has no bound $3"
    fi
    awk -v x="$2" -v low="$low" -v high="$high" 'BEGIN { exit !((low == "" || x >= low + 0) && (high == "" || x <= high + 0)) }' ||
        nbh_die 2 "$1: $2 is outside $low..$high (registry/limits.csv: $3)"
}

# The MPI libraries with a built kernel, one name per line.
nbh_built_libraries() {
    local kernel
    for kernel in "$NBH_BUILD"/*/nbh-kernel; do
        [ -x "$kernel" ] || continue
        kernel=${kernel%/nbh-kernel}
        echo "${kernel##*/}"
    done
}

# The folder of the MPI libraries `nbhbench install-mpi` installs (.mpi/NAME/).
nbh_mpi_prefix() {
    echo "${NBH_MPI_PREFIX:-$NBH_ROOT/.mpi}"
}

# The MPI libraries installed by `nbhbench install-mpi`, one name per line.
nbh_installed_mpi() {
    local marker
    for marker in "$(nbh_mpi_prefix)"/*/.nbh-installed; do
        [ -f "$marker" ] || continue
        marker=${marker%/.nbh-installed}
        echo "${marker##*/}"
    done
}

# --- the Python side (gen/, workflow/) ---

nbh_require_python() {
    [ -x "$NBH_PYTHON" ] || nbh_die 1 "$NBH_PYTHON is missing (run: make deps)"
}

# nbh_python MODULE ARGS...: runs python -m MODULE from the project's .venv.
nbh_python() {
    nbh_require_python
    PYTHONPATH="$NBH_ROOT${PYTHONPATH:+:$PYTHONPATH}" "$NBH_PYTHON" -m "$@"
}

# nbh_exec_python MODULE ARGS...: the same, replacing the shell (signals reach Python).
nbh_exec_python() {
    nbh_require_python
    PYTHONPATH="$NBH_ROOT${PYTHONPATH:+:$PYTHONPATH}" exec "$NBH_PYTHON" -m "$@"
}
