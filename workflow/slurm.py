"""How nbhbench talks to Slurm: sbatch to submit, and the job states Slurm
reports. Every command honours SLURM_CONF from the environment."""
import os
import pathlib
import re
import subprocess

from gen.errors import NbhError

# Slurm job states -> run states (docs/workflow.md).
ACTIVE = {"PENDING": "pending", "CONFIGURING": "pending", "REQUEUED": "pending",
          "REQUEUE_HOLD": "pending", "REQUEUE_FED": "pending", "RESV_DEL_HOLD": "pending",
          "RUNNING": "running", "COMPLETING": "running", "SIGNALING": "running",
          "STAGE_OUT": "running", "RESIZING": "running", "SUSPENDED": "running", "STOPPED": "running"}
FINAL = {"COMPLETED": "done", "TIMEOUT": "timeout"}  # every other final state: failed

# Pending reasons no amount of waiting resolves (squeue(1) "JOB REASON CODES"):
# the job asks for more than its partition, account or QOS allows, or for
# nodes that are not available. `submit --wait` cancels such a job at once.
NEVER_STARTS = {
    "PartitionNodeLimit": "more nodes than the partition has or allows",
    "PartitionTimeLimit": "a longer time limit than the partition allows",
    "PartitionConfig": "more than the partition's nodes offer, or an account or QOS the partition refuses",
    "BadConstraints": "constraints no node satisfies",
    "ReqNodeNotAvail": "nodes that are down, drained or not in the partition",
    "InvalidAccount": "an account that does not exist",
    "InvalidQOS": "a QOS that does not exist or is not allowed",
    "DependencyNeverSatisfied": "a dependency that can never be met",
    "QOSMaxNodePerJobLimit": "more nodes than its QOS allows per job",
    "QOSMaxWallDurationPerJobLimit": "a longer time limit than its QOS allows",
    "QOSMaxCpuPerJobLimit": "more CPUs than its QOS allows per job",
    "AssocMaxNodesPerJobLimit": "more nodes than its account allows per job",
    "AssocMaxWallDurationPerJobLimit": "a longer time limit than its account allows",
    "AssocMaxCpuPerJobLimit": "more CPUs than its account allows per job",
}


class Unreachable(Exception):
    """Slurm did not answer (no controller, no configuration)."""


class Unanswered(Unreachable):
    """A Slurm command did not end within its time: what it was asked may have been done."""


class Refused(NbhError):
    """sbatch said no and made no job."""

    def __init__(self, message):
        super().__init__(message, 1)


def run_state(slurm_state):
    word = slurm_state.split()[0].rstrip("+") if slurm_state else ""
    return ACTIVE.get(word) or FINAL.get(word) or "failed"


def reason_code(reason):
    """The code of a pending reason ("ReqNodeNotAvail,_UnavailableNodes:n4" -> "ReqNodeNotAvail")."""
    return re.split(r"[,(]", reason or "", maxsplit=1)[0]


def never_starts(reason):
    """Why Slurm can never start a job pending for REASON, or "" if it may start later."""
    code = reason_code(reason)
    return f"{code} ({NEVER_STARTS[code]})" if code in NEVER_STARTS else ""


def is_final(slurm_state):
    word = slurm_state.split()[0].rstrip("+") if slurm_state else ""
    return word not in ACTIVE


def command(*args, check=True):
    try:
        result = subprocess.run(list(args), capture_output=True, text=True, timeout=60,
                                stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise Unreachable(f"{args[0]} is not installed") from None
    except subprocess.TimeoutExpired:
        raise Unanswered(f"{args[0]} did not answer within 60 s") from None
    if check and result.returncode != 0:
        lines = (result.stderr or result.stdout).strip().splitlines()
        raise Unreachable(f"{' '.join(args[:2])}: {lines[-1] if lines else f'exit code {result.returncode}'}")
    return result


# sbatch behind a gate: the shell waits for "go" on its standard input
# before it becomes sbatch (exec keeps its pid), so that the caller can
# record the pid first; a caller that stops before saying go (killed, a
# full disk) closes the pipe, and the shell ends without running sbatch.
GATE = 'read -r go && [ "$go" = go ] && exec "$@" </dev/null'


def sbatch(script, job_name, started=None, after=None):
    """Submits SCRIPT as JOB_NAME (over its #SBATCH --job-name), to start
    only once job AFTER has ended, if given (--dependency=afterany); returns
    the job id. STARTED(pid), if given, is called with the pid sbatch will
    have before sbatch runs (an exception there stops it from running, and
    is raised). Raises Refused if sbatch made no job, NbhError if it is not
    known whether it did (no answer in time, no job id in its answer: the
    job is found by its name later, jobs_named). sbatch runs in a session of
    its own: Ctrl-C at the terminal, or the terminal's loss, reaches
    nbhbench, which records the job before it stops, and not sbatch halfway;
    a submit killed outright leaves sbatch running, and its pid recorded."""
    script = pathlib.Path(script)
    chain = [f"--dependency=afterany:{after}"] if after else []
    args = ["sbatch", "--parsable", f"--job-name={job_name}", *chain, str(script)]
    gate_read, gate_write = os.pipe()
    try:
        child = subprocess.Popen(["sh", "-c", GATE, "sbatch", *args], stdin=gate_read, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, start_new_session=True)
    finally:
        os.close(gate_read)
    try:
        if started:
            started(child.pid)
        os.write(gate_write, b"go\n")
    except BaseException:
        os.close(gate_write)  # the shell reads no go: sbatch never runs
        child.communicate()
        raise
    os.close(gate_write)
    try:
        stdout, stderr = child.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        raise NbhError(f"sbatch did not answer within 60 s for {script.name}; whether Slurm took job "
                       f"{job_name} is asked again by its name at the next status or submit", 1) from None
    if child.returncode != 0:
        lines = (stderr or stdout).strip().splitlines()
        said = lines[-1] if lines else f"exit code {child.returncode}"
        raise Refused(f"sbatch refused {script.name}: sbatch --parsable: {said}")
    job_id = stdout.strip().split(";")[0]
    if not job_id.isdigit():
        raise NbhError(f"sbatch gave no job id for {script.name}: '{stdout.strip()}'; whether Slurm "
                       f"took job {job_name} is asked again by its name at the next status or submit", 1)
    return job_id


def cancel(job_id):
    """scancel JOB_ID; raises Unreachable if Slurm refuses."""
    command("scancel", str(job_id))


def partition(name=""):
    """What scontrol says of partition NAME (the default partition if empty):
    {"PartitionName", "TotalNodes", "MaxNodes", ...}, or None if there is no such
    partition; raises Unreachable if Slurm does not answer."""
    output = command("scontrol", "show", "partition", "--oneliner").stdout
    for line in output.splitlines():
        fields = parse_key_values(line)
        if (fields.get("PartitionName") == name) if name else "Default=YES" in line:
            return fields
    return None


def exit_code(text):
    """Slurm's 'code:signal' as one number (128 + signal when killed)."""
    match = re.fullmatch(r"(\d+):(\d+)", text or "")
    if not match:
        return None
    code, signal = int(match.group(1)), int(match.group(2))
    return 128 + signal if signal and not code else code


def parse_key_values(line):
    return dict(re.findall(r"(\w+)=(\S*)", line))


def controller_records():
    """scontrol's fields of every job slurmctld still knows (JobId, JobName, JobState, ...)."""
    output = command("scontrol", "show", "job", "--oneliner").stdout
    return [fields for fields in map(parse_key_values, output.splitlines()) if "JobId" in fields]


def controller_jobs():
    """{job id: (JobState, exit code, reason)} for every job slurmctld still knows."""
    jobs = {}
    for fields in controller_records():
        reason = fields.get("Reason", "None")
        jobs[fields["JobId"]] = (fields.get("JobState", ""), exit_code(fields.get("ExitCode")),
                                 "" if reason == "None" else reason)
    return jobs


def accounting_jobs(job_ids):
    """States from sacct (needs slurmdbd; {} without it)."""
    try:
        output = command("sacct", "--noheader", "--allocations", "--parsable2",
                         "--format=JobID,State,ExitCode", "--jobs", ",".join(job_ids)).stdout
    except Unreachable:
        return {}
    jobs = {}
    for line in output.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[0] in job_ids:
            jobs[parts[0]] = (parts[1], exit_code(parts[2]), "")
    return jobs


def jobcomp_records():
    """The fields of every line of the job completion file (JobCompType=jobcomp/filetxt:
    JobId, Name, JobState, ExitCode, ...); none without one."""
    try:
        config = parse_key_values_spaced(command("scontrol", "show", "config").stdout)
    except Unreachable:
        return []
    if config.get("JobCompType") != "jobcomp/filetxt" or not config.get("JobCompLoc"):
        return []
    try:
        with open(config["JobCompLoc"], encoding="utf-8", errors="replace") as f:
            return [parse_key_values(line) for line in f]
    except OSError:
        return []


def jobcomp_jobs(job_ids):
    """States from the job completion file (JobCompType=jobcomp/filetxt)."""
    return {fields["JobId"]: (fields.get("JobState", ""), exit_code(fields.get("ExitCode")), "")
            for fields in jobcomp_records() if fields.get("JobId") in job_ids}


def parse_key_values_spaced(text):
    """'Key  = value' lines of scontrol show config."""
    values = {}
    for line in text.splitlines():
        key, equals, value = line.partition("=")
        if equals:
            values[key.strip()] = value.strip()
    return values


def job_states(job_ids):
    """{job id: (Slurm state, exit code, reason)} for the jobs Slurm can tell about;
    raises Unreachable if the controller does not answer."""
    job_ids = set(job_ids)
    if not job_ids:
        return {}
    states = {k: v for k, v in controller_jobs().items() if k in job_ids}
    for source in (accounting_jobs, jobcomp_jobs):
        missing = job_ids - set(states)
        if not missing:
            break
        states.update(source(sorted(missing)))
    return states


def jobs_named(names, since):
    """{job name: job id} of the jobs named NAMES that Slurm knows: slurmctld's,
    then sacct's submitted from SINCE on (a local time, YYYY-MM-DDTHH:MM:SS),
    then the job completion file's. Raises Unreachable if slurmctld does not
    answer (nothing can be said then)."""
    names = set(names)
    if not names:
        return {}
    found = {f["JobName"]: f["JobId"] for f in controller_records() if f.get("JobName") in names}
    if names - set(found):
        try:
            output = command("sacct", "--noheader", "--allocations", "--parsable2", "--format=JobID,JobName",
                             f"--name={','.join(sorted(names - set(found)))}", f"--starttime={since}").stdout
        except Unreachable:
            output = ""  # no slurmdbd
        for line in output.splitlines():
            job_id, _, name = line.partition("|")
            if name in names and job_id.isdigit():
                found.setdefault(name, job_id)
    if names - set(found):
        for fields in jobcomp_records():
            if fields.get("Name") in names and fields.get("JobId", "").isdigit():
                found.setdefault(fields["Name"], fields["JobId"])
    return found


def version():
    try:
        return command("sbatch", "--version").stdout.strip()
    except Unreachable:
        return ""
