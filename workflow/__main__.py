"""python -m workflow generate|submit|status|archive ...: the commands
`nbhbench generate`, `submit`, `status` and `archive` (their help:
libexec/nbhbench-*). Generate is here, not in gen/, because whether it may
replace a workspace depends on how its runs went, which only the workflow
knows (gen never imports workflow: tests/test_import_layers.py)."""
import sys

from gen.cli import Parser, main
from gen.errors import NbhError
from gen.workspace import find_workspace


def generate_command(argv):
    from gen.generate import command
    from workflow.attempts import all_failed
    return command(argv, failed_runs=all_failed)


def submit_command(argv):
    from workflow.submit import submit
    parser = Parser("submit")
    parser.add_argument("campaign")
    parser.add_argument("--wait", action="store_true")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--adaptive", action="store_true")
    parser.add_argument("--interleave-with", nargs="+", action="extend", default=[], metavar="WORKSPACE")
    parser.add_argument("--free-order", action="store_true")
    args = parser.parse_args(argv)
    return submit(find_workspace(args.campaign), wait_for_end=args.wait, resume=args.resume, adaptive=args.adaptive,
                  interleave_with=args.interleave_with, free_order=args.free_order)


def status_command(argv):
    from workflow.status import status
    parser = Parser("status")
    parser.add_argument("campaign")
    args = parser.parse_args(argv)
    return status(find_workspace(args.campaign))


def archive_command(argv):
    from workflow import archive, layout
    parser = Parser("archive")
    parser.add_argument("campaign", nargs="?")
    parser.add_argument("--verify", metavar="PATH")
    args = parser.parse_args(argv)
    if args.verify is not None:
        if args.campaign:
            parser.error("give either CAMPAIGN or --verify PATH")
        problems, count = archive.verify(args.verify)
        for problem in problems:
            print(f"nbhbench: archive --verify: {problem}", file=sys.stderr)
        if problems:
            return archive.EXIT_CORRUPT
        print(f"{args.verify}: intact ({count} files match {archive.MANIFEST})")
        return 0
    if not args.campaign:
        parser.error("give CAMPAIGN (or --verify PATH)")
    target, rows, incomplete, checks, count, damaged = archive.archive(find_workspace(args.campaign))
    done = sum(r["state"] == "done" for r in rows)
    print(f"{args.campaign}: {done}/{len(rows)} runs complete, "
          f"{sum(r['experiments_done'] for r in rows)}/{sum(r['experiments_total'] for r in rows)} "
          f"experiments, {count} files")
    if incomplete:
        print(f"nbhbench: archive: {len(incomplete)} of {len(rows)} runs incomplete: "
              f"{', '.join(incomplete)}", file=sys.stderr)
    for run in damaged:
        print(f"nbhbench: archive: run {run}; archived as damaged (state damaged in runs.csv, "
              "its rows not taken in results/RUN.rejected.csv): analyze leaves it out", file=sys.stderr)
    for row in rows:
        if row["layout"] == layout.MISMATCH:
            print(f"nbhbench: archive: run {row['run_id']}: {layout.MISMATCH}: {row['layout_detail']} "
                  "(analyze leaves it out unless --include-mismatched)", file=sys.stderr)
    crowded = [row for row in rows if row["oversubscribed"] == "yes"]
    if crowded:
        print(f"nbhbench: archive: {len(crowded)} of {len(rows)} runs oversubscribed: more processes than cores "
              f"on a host ({crowded[0]['run_id']}: {crowded[0]['ranks_per_host']} processes, "
              f"{crowded[0]['cores_per_host']} cores)", file=sys.stderr)
    for check in checks:
        if check["verdict"] != "in force":
            print(f"nbhbench: archive: run {check['run_id']}: library parameter {check['name']}="
                  f"{check['value']} was {check['verdict']} (its provenance has no check by the kernel)",
                  file=sys.stderr)
    print(target)
    return 0


COMMANDS = {"generate": generate_command, "submit": submit_command, "status": status_command, "archive": archive_command}


def dispatch(argv):
    if not argv or argv[0] not in COMMANDS:
        raise NbhError(f"usage: python -m workflow {'|'.join(COMMANDS)} ...")
    return COMMANDS[argv[0]](argv[1:])


main(dispatch)
