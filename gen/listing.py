"""`nbhbench list`: the shipped campaigns and environments, one line each,
read from campaigns/*/campaign.conf and env/* (their description keys)."""
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


def table(rows):
    rows = list(rows)
    if not rows:
        return ["  (none)"]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return ["  " + "  ".join([c.ljust(w) for c, w in zip(r, widths)] + [r[-1]]).rstrip() for r in rows]


def command(argv):
    parser = Parser("list")
    parser.add_argument("what", nargs="?", choices=("campaigns", "environments"))
    args = parser.parse_args(argv)
    if args.what in (None, "campaigns"):
        print("Campaigns (campaigns/NAME; nbhbench generate NAME --env ENV):")
        print("\n".join(table(campaign_rows())))
    if args.what is None:
        print()
    if args.what in (None, "environments"):
        print("Environments (env/NAME; --env NAME):")
        print("\n".join(table(environment_rows())))
    return 0


if __name__ == "__main__":
    main(command)
