"""`nbhbench list`: the shipped campaigns and environments, one line each,
read from campaigns/*/campaign.conf and env/* (their description keys),
and the names an experiment's parameters take (op, topology, ...) and the
parameters themselves, from the registry."""
from gen import closest_name, registry
from gen.cli import Parser, main
from gen.envfile import ENV_DIR, known_names, read_environment
from gen.errors import NbhError
from gen.settings import read_settings
from gen.workspace import CAMPAIGN_FILES, CAMPAIGNS


def campaign_rows():
    for path in sorted(p for p in CAMPAIGNS.iterdir() if p.is_dir()):
        if not all((path / f).is_file() for f in CAMPAIGN_FILES):
            continue
        try:
            s = read_settings(path / "campaign.conf")
            sets = len(s.param_sets) or 1
            yield (path.name, ",".join(f"{n}x{p}" for n, p in s.deployments), f"nrun {s.nrun}",
                   f"{sets} set{'s' if sets != 1 else ''}", s.env, s.description)
        except NbhError as e:  # a broken campaign is listed with its problem
            yield (path.name, "", "", "", "", f"(cannot be read: {e})")


def environment_rows():
    for name in known_names():
        try:
            env = read_environment(str(ENV_DIR / name))
            yield (name, env.library, env.scheduler, env.description)
        except NbhError as e:
            yield (name, "", "", f"(cannot be read: {e})")


# What `list WHAT` lists from the registry: WHAT (a parameter, or the
# table's name), the table, its heading and the columns shown beside the name.
REGISTRY_LISTS = (
    ("op", "operations", "Operations (op = NAME; registry/operations.csv):", ("mpi_call",)),
    ("topology", "topologies", "Topologies (topology = NAME; registry/topologies.csv):",
     ("constructors", "orders")),
    ("constructor", "constructors", "Constructors (constructor = NAME; registry/constructors.csv):", ("mpi_call",)),
    ("order", "orders", "Orders (order = NAME, as the topology allows; registry/orders.csv):", ()),
    ("datatype", "datatypes", "Datatypes (datatype = NAME; registry/datatypes.csv):", ("mpi_type",)),
    ("layout", "layouts", "Layouts (layout = NAME; registry/layouts.csv; docs/datatypes.md):", ("parameters",)),
    ("type_constructor", "type_constructors", "Type constructors (type_constructor = NAME, as the layout allows; "
     "registry/type_constructors.csv):", ("mpi_call",)),
    ("packing", "packings", "Packings (packing = NAME, as the layout allows; registry/packings.csv):", ()),
    ("arrival", "arrivals", "Arrival patterns (arrival = NAME; registry/arrivals.csv):", ()),
    ("sync", "syncs", "Starts (sync = NAME; registry/syncs.csv):", ()),
    ("parameter", "parameters", "Parameters (experiments.py levels(NAME=...), --set NAME=...; id, nrep and "
     "seed come from the campaign; registry/parameters.csv):", ("type",)),
)


def registry_rows(table, columns):
    for row in registry.read_table(table):
        yield (row["name"], *(row[c] if c != "type" or row[c] != "path" else "file" for c in columns),
               row["description"])


def table(rows):
    rows = list(rows)
    if not rows:
        return ["  (none)"]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return ["  " + "  ".join([c.ljust(w) for c, w in zip(r, widths)] + [r[-1]]).rstrip() for r in rows]


def sections():
    """(the words that select it, heading, rows) for every list."""
    yield ("campaigns",), "Campaigns (campaigns/NAME; nbhbench generate NAME --env ENV):", campaign_rows
    yield ("environments",), "Environments (env/NAME; --env NAME):", environment_rows
    for parameter, name, heading, columns in REGISTRY_LISTS:
        yield (parameter, name), heading, lambda name=name, columns=columns: registry_rows(name, columns)


def command(argv):
    parser = Parser("list")
    parser.add_argument("what", nargs="?")
    args = parser.parse_args(argv)
    chosen = [s for s in sections() if args.what is None or args.what in s[0]]
    if not chosen:
        words = [w for s in sections() for w in s[0]]
        raise NbhError(f"list: {closest_name.unknown('list', args.what, words, 'nbhbench list --help')}")
    for number, (_, heading, rows) in enumerate(chosen):
        print(("\n" if number else "") + heading)
        print("\n".join(table(rows())))
    return 0


if __name__ == "__main__":
    main(command)
