"""`nbhbench tune --relook NAME` (docs/tuning.md): a finished race decided
again, with the analyzer of today, on the archives its looks had, and its
confirmation analysed again; no run is made, tune.json's race is kept.

The replay is the race as it would have gone: look 1 on the first look's
archive with every candidate; each later look on that look's archive with
only the candidates the replay kept (the race ran a round of every
candidate it kept, so the archive holds theirs), the runs counted as the
replay would have spent them (each kept candidate `step` more per round);
it stops where the race would have stopped (tune/decide.py), or where the
measured race ends: at its last look, or where the replay keeps a
candidate the race dropped (whose later runs were never made). Its
confirmation is the one measured, analysed again, where the replay's
winner is the one it measured.
"""
from gen import whole_files
from gen.errors import NbhError
from gen.workspace import git_state, now_utc
from tune import confirm, decide, race, report


def replay(plan, decide_look):
    """The replayed looks: DECIDE_LOOK(number, archive, alive) gives a
    look's record (tune.race.decide_look's: best, ratios, verdicts,
    leaving) for the alive candidates on that archive. Returns (records,
    why it stopped, winner)."""
    looks = plan["race"]["looks"]
    alive = [c["name"] for c in plan["candidates"]]
    records, runs, reason = [], 0, ""
    for number, measured in enumerate(looks, 1):
        unmeasured = [name for name in alive if name not in measured["alive"]]
        if unmeasured:
            reason = (f"the measured race ends: {', '.join(unmeasured)} left it before look {number}, "
                      "whose runs were never made")
            break
        runs = len(alive) * plan["first"] if number == 1 else runs + plan["step"] * len(alive)
        record = {"look": number, "runs": runs, "archive": measured["archive"],
                  "measured": {"best": measured["best"], "leaving": measured["leaving"]}}
        record.update(decide_look(number, measured["archive"], alive))
        alive = [name for name in alive if name not in record["leaving"]]
        reason = decide.stop_reason(alive, {k: v for k, v in record["verdicts"].items() if k in alive},
                                    runs + plan["step"] * len(alive), plan["budget"])
        if not reason and number >= race.looks_at_most(plan):
            reason = "the last planned look"
        if not reason and number == len(looks):
            reason = "the measured race ends: no later look was measured"
        record["stop"] = reason
        records.append(record)
        if reason:
            break
    winner = decide.best_of(records[-1]["ratios"], alive) if records else None
    return records, reason, winner


def relook(tune):
    """Replays TUNE's race (tunes/NAME/relook/N/) and analyses its
    confirmation again (relook/confirm/); records both in tune.json
    ("relook") and relook.csv; returns the record."""
    plan = tune.state
    if not plan.get("race", {}).get("looks"):
        raise NbhError(f"tune: {tune.name} has no look to make again (its race has not looked yet)")
    folder = tune.path / "relook"
    whole_files.make_directory(folder, exist_ok=True)

    def decide_look(number, archive, alive):
        where = folder / str(number)
        whole_files.make_directory(where, exist_ok=True)
        return race.decide_look(tune, archive, alive, where)

    records, reason, winner = replay(plan, decide_look)
    found = {"at": now_utc(), "git_commit": git_state(), "looks": records, "stopped": reason, "winner": winner}
    measured = plan.get("confirm", {})
    if measured.get("archive") and winner == measured.get("winner"):
        out = folder / "confirm"
        tune.nbhbench("analyze", measured["archive"], "--assess", tune.campaign("confirm") / "assessment.conf",
                      "--out", out, "--no-plots", "--v-thres", plan["v_thres"], "--hold-ratio",
                      plan["hold_ratio"], echo=False)
        tests = decide.read_tests(out / "tests.csv")
        found["confirm"] = confirm.verdict(tests, plan["target"]["tag"], winner, plan["target"]["deployment"],
                                           plan["target"]["cells"], plan["confirm_deployments"])
        confirm.write_table(folder / "confirmation.csv", found["confirm"])
    elif measured.get("archive"):
        found["confirm"] = {"skipped": f"the confirmation measured {measured.get('winner')}, the replay's winner "
                                       f"is {winner}"}
    plan["relook"] = found
    tune.save()
    rows = race_rows(records)
    if rows:
        whole_files.write_csv(tune.path / "relook.csv", list(rows[0]), rows)
    return found


def race_rows(records):
    """relook.csv: race.csv's columns for the replayed looks, and the look
    the race measured (its best, whether it dropped the candidate)."""
    rows = []
    for record in records:
        for row in report.look_rows(record):
            row.update(measured_best=int(record["measured"]["best"] == row["candidate"]),
                       measured_leaves=int(row["candidate"] in record["measured"]["leaving"]))
            rows.append(row)
    return rows


def lines(tune, found):
    """What --relook prints: a line per replayed look, the stop and the
    confirmation."""
    said = [race.look_line(record, [n for n in record["alive"] if n not in record["leaving"]])
            for record in found["looks"]]
    said.append(f"tune {tune.name} relooked: winner {found['winner']} ({found['stopped']})")
    if "confirm" in found:
        said.append(f"  confirmation: {found['confirm'].get('summary') or found['confirm'].get('skipped')}")
    return said

