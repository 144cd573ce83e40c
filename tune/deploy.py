"""The winner of `nbhbench tune` as the library's own configuration
(docs/tuning.md, "Deployable files"):

  Open MPI  mca-params.conf            name = value lines (OMPI_MCA_mca_base_param_files=FILE,
                                       or $HOME/.openmpi/mca-params.conf)
            coll-tuned-rules.conf      for a forced coll tuned algorithm: a dynamic rules file
            mca-params-rules.conf      that applies it only at the raced communicator size and
                                       from the raced message sizes on, and the parameters that
                                       load it
  MPICH     cvars.env                  export MPIR_CVAR_...=... lines (source it in the job)
  Intel MPI impi.env                   export I_MPI_ADJUST_...=... lines (not MPI_T variables:
                                       Intel MPI cannot report them in force)
"""
import re

from gen import whole_files

# Open MPI's coll tuned collective ids (COLLTYPE of coll_base_functions.h,
# the ids of a dynamic rules file) and how its rules measure a message:
# alltoall and allgather rules see the type size x count x communicator size.
OPENMPI_COLLECTIVES = {"allgather": 0, "allgatherv": 1, "allreduce": 2, "alltoall": 3, "alltoallv": 4}
ALGORITHM = re.compile(r"coll_tuned_(\w+?)_algorithm$")


def family(library):
    for name in ("openmpi", "mpich", "intelmpi"):
        if library == name or re.fullmatch(re.escape(name) + r"[-0-9.]*", library):
            return name
    return library


def rules_text(op, algorithm, nprocs, from_bytes, comment):
    """A coll tuned dynamic rules file: collective OP uses ALGORITHM (its
    number) on communicators of NPROCS processes from FROM_BYTES per process
    to each other on; below, and on other sizes, the library's own choice
    (algorithm 0)."""
    total = from_bytes * nprocs
    lines = [f"# {comment}", "1                  # collectives in this file",
             f"{OPENMPI_COLLECTIVES[op]}                  # {op}", "1                  # communicator sizes",
             f"{nprocs}                  # processes", f"{2 if total else 1}                  # message sizes"]
    if total:
        lines.append("0 0 0 0            # from 0 bytes: the library's own choice")
    lines.append(f"{total} {algorithm} 0 0        # from {total} bytes (x{nprocs} processes): algorithm {algorithm}")
    return "\n".join(lines) + "\n"


def algorithm_number(value, choices):
    """The number of an Open MPI algorithm choice (by name or number)."""
    if value.isdigit():
        return int(value)
    for item in choices.split(";"):
        number, _, name = item.partition(":")
        if name == value:
            return int(number)
    raise ValueError(f"{value} is not one of {choices}")


def write(folder, library, parameters, comment, nprocs=None, from_bytes=0, choices=None):
    """Writes the deployable files of PARAMETERS for LIBRARY into FOLDER;
    returns [(file name, what it is)]. CHOICES: {parameter: MPI_T choices}
    (Open MPI's enumerations, to number an algorithm in a rules file)."""
    whole_files.make_directory(folder, exist_ok=True)
    kind = family(library)
    written = []
    if kind == "openmpi":
        body = "".join(f"{name} = {value}\n" for name, value in parameters.items())
        whole_files.write_text(folder / "mca-params.conf", f"# {comment}\n" + body)
        written.append(("mca-params.conf", "Open MPI parameter file: OMPI_MCA_mca_base_param_files=FILE"))
        forced = [(ALGORITHM.match(name).group(1), value) for name, value in parameters.items()
                  if ALGORITHM.match(name) and ALGORITHM.match(name).group(1) in OPENMPI_COLLECTIVES]
        if forced and nprocs:
            op, value = forced[0]
            number = algorithm_number(value, (choices or {}).get(f"coll_tuned_{op}_algorithm", ""))
            rules = folder / "coll-tuned-rules.conf"
            whole_files.write_text(rules, rules_text(op, number, nprocs, from_bytes, comment))
            whole_files.write_text(folder / "mca-params-rules.conf",
                                   f"# {comment}\ncoll_tuned_use_dynamic_rules = true\n"
                                   f"coll_tuned_dynamic_rules_filename = {rules}\n")
            written += [("coll-tuned-rules.conf", f"coll tuned dynamic rules: {op} algorithm {number} at "
                                                  f"{nprocs} processes from {from_bytes} B per process on"),
                        ("mca-params-rules.conf", "the parameters that load the rules file")]
    elif kind == "intelmpi":
        body = "".join(f"export {name}={value}\n" for name, value in parameters.items())
        whole_files.write_text(folder / "impi.env", f"# {comment}\n" + body)
        written.append(("impi.env", "Intel MPI environment (I_MPI_ADJUST_*: no MPI_T variable; set, not verifiable)"))
    else:
        body = "".join(f"export {name}={value}\n" for name, value in parameters.items())
        whole_files.write_text(folder / "cvars.env", f"# {comment}\n" + body)
        written.append(("cvars.env", "MPICH control variables: source it before mpiexec"))
    return written
